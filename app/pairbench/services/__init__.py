"""The use cases the window and the CLI share: one module per subject, over a Library."""
