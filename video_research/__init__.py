"""video-research: an MCP server that lets AI agents research video."""

from importlib.metadata import PackageNotFoundError, version

try:
    # One source of truth: the version in pyproject.toml, as the installed package records it.
    __version__ = version("video-research")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
