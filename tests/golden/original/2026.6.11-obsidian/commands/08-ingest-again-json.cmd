openclaw wiki ingest /tmp/owg/2026.6.11-obsidian/ingest/input/meeting-notes.txt --json
