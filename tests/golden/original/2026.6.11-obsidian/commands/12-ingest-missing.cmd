openclaw wiki ingest /tmp/owg/2026.6.11-obsidian/ingest/input/does-not-exist.txt
