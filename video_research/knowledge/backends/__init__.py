"""The knowledge store's engines: embedded SQLite (FTS5, vectors, ANN) and Weaviate."""
