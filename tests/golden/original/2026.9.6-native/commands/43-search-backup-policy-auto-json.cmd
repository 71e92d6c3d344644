openclaw wiki search backup\ policy --mode auto --json
