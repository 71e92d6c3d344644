openclaw wiki search postgresql --mode source-evidence
