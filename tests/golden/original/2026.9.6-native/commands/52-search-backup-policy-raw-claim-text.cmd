openclaw wiki search backup\ policy --mode raw-claim
