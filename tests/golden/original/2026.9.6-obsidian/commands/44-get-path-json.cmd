openclaw wiki get entities/alpha.md --json
