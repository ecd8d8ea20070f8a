"""Video analysis with Gemini: inputs, one-shot and batch analysis, multi-turn sessions, the result cache."""
