"""Embedding models: the local MiniLM on ONNX Runtime, its numpy twin, and the selection."""
