openclaw wiki search source.alpha --mode find-person
