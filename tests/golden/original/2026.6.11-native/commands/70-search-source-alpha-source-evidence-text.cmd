openclaw wiki search source.alpha --mode source-evidence
