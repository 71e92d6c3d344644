openclaw wiki apply synthesis Alpha\ Synthesis --body Alpha\ runs\ PostgreSQL\;\ see\ the\ Alpha\ source. --source-id source.alpha
