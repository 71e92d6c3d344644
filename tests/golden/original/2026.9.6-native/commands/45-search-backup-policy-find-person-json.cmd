openclaw wiki search backup\ policy --mode find-person --json
