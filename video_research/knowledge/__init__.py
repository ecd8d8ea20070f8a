"""The knowledge base: collections, the store (embedded SQLite or Weaviate), embeddings,
and the write-through every producer tool uses."""
