openclaw wiki search alpha --max-results 3 --json
