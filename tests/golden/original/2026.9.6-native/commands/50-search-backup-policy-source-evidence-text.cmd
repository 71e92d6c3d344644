openclaw wiki search backup\ policy --mode source-evidence
