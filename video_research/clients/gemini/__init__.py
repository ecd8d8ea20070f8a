"""The Gemini client: generation, files, context caches, batches and prompt templates."""
