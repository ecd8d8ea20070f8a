"""The MCP surface over real transports: stdio, HTTP, SSE, auth, logging, listing."""
