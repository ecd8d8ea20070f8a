"""The Gemini Deep Research agent in the background."""
