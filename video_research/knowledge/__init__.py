"""The knowledge base: collections, the store (embedded SQLite or Weaviate), embeddings,
the write-through every producer tool uses, and answering a question from it with citations."""
