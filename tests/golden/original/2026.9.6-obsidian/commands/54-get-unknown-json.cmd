openclaw wiki get no-such-page --json
