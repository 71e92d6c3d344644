openclaw wiki init
