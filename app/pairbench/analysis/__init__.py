"""Pure numpy analysis: statistics, the burst-credit model (imports only ``domain`` and numpy)."""
