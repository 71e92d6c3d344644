openclaw wiki search alpha --mode auto --json
