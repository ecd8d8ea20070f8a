"""The MCP surface: the low-level Server, its transports, auth, resources, prompts and completions."""
