"""video-research: an MCP server that lets AI agents research video."""

__version__ = "0.1.0"
