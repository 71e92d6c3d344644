openclaw wiki search postgresql --mode auto
