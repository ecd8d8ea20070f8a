"""Catalog, playlists, queue and marathons, over SQLite and NATS."""
