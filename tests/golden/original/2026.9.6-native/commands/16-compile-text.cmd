openclaw wiki compile
