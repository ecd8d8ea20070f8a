"""The dispatch table and the one call path: tool specs, toolsets, contracts checks, call context."""
