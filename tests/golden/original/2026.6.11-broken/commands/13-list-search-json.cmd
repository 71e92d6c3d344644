openclaw wiki search list --json
