"""The run library view: every stored run, filters, editing, a run's detail, importing files."""
