openclaw wiki search good --json
