"""The dispatch table and the one call path: tool specs, toolsets, contracts checks, call context."""

from video_research.tools import startup

startup.install()
