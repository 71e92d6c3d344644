openclaw wiki search postgresql --mode find-person --json
