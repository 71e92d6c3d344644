openclaw wiki get alpha --lines 3
