"""The run library view."""
