openclaw wiki search who\ can\ help\ with\ postgres\ tuning --mode find-person --json
