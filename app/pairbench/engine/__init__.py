"""Use-cases in plain asyncio: preflight a pair and execute one run end to end."""
