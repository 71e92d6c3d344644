openclaw wiki search alpha --mode raw-claim
