openclaw wiki search alpha --mode source-evidence --json
