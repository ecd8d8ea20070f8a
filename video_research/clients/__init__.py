"""Clients of outside services: Gemini, YouTube Data API, Semantic Scholar."""
