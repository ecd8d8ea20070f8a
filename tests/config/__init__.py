"""Settings: sources, validation, messages."""
