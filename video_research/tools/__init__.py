"""The dispatch table and the one call path: tool specs, toolsets, contract checks.

Loading it also wires the domain collections into the knowledge layer (`startup`): every
path to a handler comes through here, and nothing is imported until first use.
"""

from video_research.tools import startup

startup.install()
