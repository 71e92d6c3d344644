openclaw wiki search alpha --mode bogus
