"""The knowledge store: both backends, ANN, keyword search, embeddings, tools."""
