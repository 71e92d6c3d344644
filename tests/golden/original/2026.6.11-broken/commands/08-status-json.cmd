openclaw wiki status --json
