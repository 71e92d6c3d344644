openclaw wiki search who\ can\ help\ with\ postgres\ tuning --mode raw-claim --json
