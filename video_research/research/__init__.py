"""Evidence-tiered research over documents and the web."""
