openclaw wiki init --json
