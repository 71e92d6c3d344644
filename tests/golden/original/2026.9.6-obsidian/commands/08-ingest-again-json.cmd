openclaw wiki ingest /tmp/owg/2026.9.6-obsidian/ingest/input/meeting-notes.txt --json
