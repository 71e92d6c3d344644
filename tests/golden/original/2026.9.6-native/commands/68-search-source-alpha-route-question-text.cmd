openclaw wiki search source.alpha --mode route-question
