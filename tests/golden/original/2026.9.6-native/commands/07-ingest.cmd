openclaw wiki ingest /tmp/owg/2026.9.6-native/ingest/input/meeting-notes.txt
