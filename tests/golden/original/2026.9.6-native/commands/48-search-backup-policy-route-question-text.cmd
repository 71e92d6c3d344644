openclaw wiki search backup\ policy --mode route-question
