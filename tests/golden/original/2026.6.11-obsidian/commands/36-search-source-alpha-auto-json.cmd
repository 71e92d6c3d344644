openclaw wiki search source.alpha --json
