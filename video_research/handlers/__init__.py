"""Tool handlers: plain `async def tool(args, ctx) -> dict` functions, one module per area.

They receive arguments already defaulted and validated against schemas/tools/<tool>.input.json
and return a dict that must match schemas/tools/<tool>.output.json. Expected failures are
raised as `video_research.support.errors.ToolFailure`. A handler reaches SQLite, Gemini, YouTube and
the knowledge store only through their modules, never directly.
"""
