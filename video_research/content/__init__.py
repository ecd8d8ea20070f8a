"""Documents, web pages and text analysed by Gemini: one source, or many files at once."""
