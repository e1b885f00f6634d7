"""The hosts and pairs panel: add, edit, remove, import from ~/.ssh/config, check a pair."""
