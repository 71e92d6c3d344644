openclaw wiki search alpha --backend bogus
