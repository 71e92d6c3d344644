openclaw wiki lint --json
