openclaw wiki doctor --json
