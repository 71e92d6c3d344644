openclaw wiki lint
