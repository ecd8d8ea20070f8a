"""Lay out the MCP Bundle's directory: `make mcpb` then validates and packs it with the
format's own CLI (`mcpb validate`, `mcpb pack`, npm `@anthropic-ai/mcpb`).

    python bundle/build.py WHEEL OUT_DIR

The bundle uses the format's uv runtime (manifest 0.4, `"server": {"type": "uv"}`): it
carries the wheel and a pyproject.toml that names it, and the host's uv makes the
environment on the user's machine for the user's platform. The format's Python type would
have to carry every dependency, compiled for one platform (about 1.4 GB). The manifest's
version, description and tools come from pyproject.toml and the dispatch table, so the
bundle never disagrees with the package it carries.
"""

from __future__ import annotations

import json
import shutil
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

USER_CONFIG = {
    "gemini_api_key": {
        "type": "string",
        "title": "Gemini API key",
        "description": "For video analysis, research and web search (aistudio.google.com). "
        "Without it those tools answer config_error; the offline tools still work.",
        "sensitive": True,
        "required": False,
    },
    "file_roots": {
        "type": "directory",
        "title": "Folders the tools may read",
        "description": "Local videos, transcripts and documents are read only under these.",
        "multiple": True,
        "required": False,
        "default": ["${HOME}"],
    },
    "youtube_api_key": {
        "type": "string",
        "title": "YouTube Data API key",
        "description": "For metadata and playlists; the Gemini key is used when empty.",
        "sensitive": True,
        "required": False,
    },
}


def manifest(project: dict, wheel: str) -> dict:
    from video_research.tools import dispatch

    tools = [
        {"name": name, "description": spec.summary} for name, spec in sorted(dispatch.TOOLS.items())
    ]
    return {
        "manifest_version": "0.4",
        "name": project["name"],
        "display_name": "video-research",
        "version": project["version"],
        "description": project["description"],
        "long_description": (
            "Analyse videos with Gemini, read YouTube metadata and playlists, find the "
            "moment something is said in transcripts, speech and slides, search your own "
            "documents with citations, and keep a knowledge base of every result. The "
            "offline tools (frames, OCR, speech, search) need no key."
        ),
        "author": {"name": "video-research contributors"},
        "license": project.get("license", {}).get("text", "MIT"),
        "keywords": ["video", "youtube", "transcripts", "gemini", "research", "search"],
        "server": {
            "type": "uv",
            "entry_point": "server/main.py",
            "mcp_config": {
                "command": "uv",
                "args": [
                    "run",
                    "--quiet",
                    "--directory",
                    "${__dirname}",
                    "server/main.py",
                    "${user_config.file_roots}",
                ],
                "env": {
                    "GEMINI_API_KEY": "${user_config.gemini_api_key}",
                    "YOUTUBE_API_KEY": "${user_config.youtube_api_key}",
                },
            },
        },
        "compatibility": {
            "platforms": ["darwin", "linux", "win32"],
            "runtimes": {"python": project["requires-python"]},
        },
        "user_config": USER_CONFIG,
        "tools": tools,
    }


def launcher_project(project: dict, wheel: str) -> str:
    """The bundle's pyproject.toml: one dependency, the wheel it carries."""
    return (
        "# The environment the host's uv makes for this bundle: the wheel beside it.\n"
        "[project]\n"
        f'name = "{project["name"]}-bundle"\n'
        f'version = "{project["version"]}"\n'
        f'requires-python = "{project["requires-python"]}"\n'
        f'dependencies = ["{project["name"]}=={project["version"]}"]\n\n'
        "[tool.uv]\n"
        "package = false\n\n"
        "[tool.uv.sources]\n"
        f'{project["name"]} = {{ path = "server/{wheel}" }}\n'
    )


def build(wheel: Path, out: Path) -> Path:
    """The bundle's directory in `out` (replaced); returns the manifest's path."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    expected = f"{project['name'].replace('-', '_')}-{project['version']}-"
    if not wheel.name.startswith(expected):
        raise SystemExit(f"{wheel.name} is not the wheel of version {project['version']}")
    if out.exists():
        shutil.rmtree(out)
    (out / "server").mkdir(parents=True)
    shutil.copy2(wheel, out / "server" / wheel.name)
    shutil.copy2(HERE / "main.py", out / "server" / "main.py")
    (out / "pyproject.toml").write_text(launcher_project(project, wheel.name))
    shutil.copy2(ROOT / "README.md", out / "README.md")
    path = out / "manifest.json"
    path.write_text(json.dumps(manifest(project, wheel.name), indent=2) + "\n")
    return path


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    print(build(Path(sys.argv[1]), Path(sys.argv[2])))
