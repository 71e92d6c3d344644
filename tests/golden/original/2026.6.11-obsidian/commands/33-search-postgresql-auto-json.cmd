openclaw wiki search postgresql --json
