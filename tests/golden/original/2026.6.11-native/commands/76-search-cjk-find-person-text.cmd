openclaw wiki search 大语言模型 --mode find-person
