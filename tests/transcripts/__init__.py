"""Transcripts: formats, chunking, sources, limits, search and the tools."""
