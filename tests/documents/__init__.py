"""Documents: extraction, ingest, search, end to end."""
