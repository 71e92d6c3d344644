openclaw wiki search postgresql --mode raw-claim --json
