"""Tool handlers: plain `async def tool(args, ctx) -> dict` functions, one module per toolset
(the module of the same name in tools/table lists their specs).

They receive arguments already defaulted and validated against schemas/tools/<tool>.input.json
and return a dict that must match schemas/tools/<tool>.output.json. Expected failures are
raised as `video_research.support.errors.ToolFailure`. A handler is thin: it checks what the
schema cannot, calls its domain package (video, content, research, transcripts, ...) with the
settings of the call (`ctx.settings`, never a global), and shapes the result. Handlers never
import one another; what two toolsets share lives in a domain package.
"""
