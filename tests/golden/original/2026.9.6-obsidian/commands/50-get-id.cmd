openclaw wiki get entity.alpha --lines 5
