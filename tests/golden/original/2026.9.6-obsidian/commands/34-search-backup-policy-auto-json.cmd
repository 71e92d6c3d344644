openclaw wiki search backup\ policy --json
