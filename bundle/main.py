"""The MCP Bundle's entry point: serve MCP over stdio, reading the folders the user chose.

The host runs it in the bundle's uv project (`uv run --directory <bundle> server/main.py
DIR...`). A `multiple` directory field of the bundle's user configuration reaches a server
only as arguments (the format expands an array into separate arguments, never into one
environment variable), so each argument is a folder the local-file tools may read, and
they become VIDEO_RESEARCH_FILE_ROOTS. An unset key arrives as an empty string, which
would read as a key: it is removed.
"""

import os
import sys

from video_research.cli import main

if __name__ == "__main__":
    roots = [arg for arg in sys.argv[1:] if arg.strip()]
    if roots:
        os.environ["VIDEO_RESEARCH_FILE_ROOTS"] = ",".join(roots)
    for name in ("GEMINI_API_KEY", "YOUTUBE_API_KEY"):
        if not os.environ.get(name, "").strip():
            os.environ.pop(name, None)
    sys.exit(main(["serve"]))
