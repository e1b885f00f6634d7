"""The team library: runs, storage suites and campaigns published to a PostgreSQL server."""
