"""Outside-service clients against local stubs of the real APIs (Gemini, YouTube)."""
