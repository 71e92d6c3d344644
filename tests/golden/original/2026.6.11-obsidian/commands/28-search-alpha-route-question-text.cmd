openclaw wiki search alpha --mode route-question
