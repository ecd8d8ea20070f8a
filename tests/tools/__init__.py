"""The dispatch table and call path: roles, contracts, toolsets, layout rules."""
