"""The command-line front end (DESIGN §4); it drives the same engine as the GUI."""
