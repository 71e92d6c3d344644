openclaw wiki doctor
