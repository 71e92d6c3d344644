openclaw wiki compile --json
