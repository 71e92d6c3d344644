openclaw wiki get sources/alpha.md --from 4 --lines 2
