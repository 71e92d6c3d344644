openclaw wiki search source.alpha --mode auto
