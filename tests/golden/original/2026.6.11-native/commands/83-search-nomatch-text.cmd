openclaw wiki search zzz-no-match-term
