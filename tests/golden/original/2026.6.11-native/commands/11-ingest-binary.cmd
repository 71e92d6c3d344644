openclaw wiki ingest /tmp/owg/2026.6.11-native/ingest/input/blob.bin
