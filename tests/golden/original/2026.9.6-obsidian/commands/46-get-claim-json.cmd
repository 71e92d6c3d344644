openclaw wiki get claim.alpha.db --json
