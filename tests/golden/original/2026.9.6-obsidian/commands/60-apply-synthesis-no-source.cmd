openclaw wiki apply synthesis No\ Source --body x
