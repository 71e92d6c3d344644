openclaw wiki search 大语言模型 --mode source-evidence --json
