"""Scholarly papers through the Semantic Scholar stub."""
