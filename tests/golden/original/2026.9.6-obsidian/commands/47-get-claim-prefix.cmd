openclaw wiki get claim:claim.alpha.db --lines 3
