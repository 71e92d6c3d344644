openclaw wiki ingest /tmp/owg/2026.6.11-native/ingest/input/meeting-notes.txt --json
