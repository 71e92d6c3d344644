openclaw wiki search alpha --mode find-person --json
