openclaw wiki search source.alpha --mode raw-claim
