"""The storage suite in the window: its form, the live view (current job, convergence,
measurement window, progress) and the suites to resume."""
