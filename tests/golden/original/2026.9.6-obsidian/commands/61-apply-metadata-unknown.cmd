openclaw wiki apply metadata no-such-page --status review
