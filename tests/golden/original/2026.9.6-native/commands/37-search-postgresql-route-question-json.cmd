openclaw wiki search postgresql --mode route-question --json
