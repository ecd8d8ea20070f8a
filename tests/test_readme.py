"""The README and docs/ stay true: every setting and every tool is documented where a reader
looks for it, the README stays a ten-minute read that names the two set-up commands, its
tour calls real tools with valid arguments, and every link between the pages lands."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT
from video_research.config import env_names
from video_research.support import contracts
from video_research.tools import dispatch

README = (REPO_ROOT / "README.md").read_text()
MAKEFILE = (REPO_ROOT / "Makefile").read_text()
DOCS = REPO_ROOT / "docs"
CONFIGURATION = (DOCS / "configuration.md").read_text()
TOOL_PAGES = {path.name: path.read_text() for path in sorted((DOCS / "tools").glob("*.md"))}
MKDOCS = (REPO_ROOT / "mkdocs.yml").read_text()

README_MAX_LINES = 320
"""The README is what a newcomer reads first; everything longer belongs in docs/."""

TOOLSETS = sorted({spec.toolset for spec in dispatch.TOOLS.values()})
DEFAULT_TOOLS = set(dispatch.DEFAULT_PROFILE) | {
    name for name, spec in dispatch.TOOLS.items() if spec.toolset == dispatch.META_TOOLSET
}


def _section(text: str, heading: str) -> str | None:
    """The body of the `## heading` section of a page, up to the next `## ` heading."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else None


def _readme_tool_rows() -> dict[str, list[str]]:
    """The README's tool table: tool name -> its cells (tool, toolset, default, what it does)."""
    tools = _section(README, "Tools")
    assert tools is not None, "README has no '## Tools' section"
    rows: dict[str, list[str]] = {}
    for line in tools.splitlines():
        match = re.match(r"^\| `([a-z_]+)` \|", line)
        if match:
            rows[match.group(1)] = [cell.strip() for cell in line.strip().strip("|").split("|")]
    return rows


README_TOOL_ROWS = _readme_tool_rows()


def _slug(heading: str) -> str:
    """The anchor GitHub and MkDocs give a heading (for the headings these pages use)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def _tour_calls() -> list[tuple[str, str]]:
    """Every `video-research call TOOL --json '{...}'` in the README's offline tour."""
    tour = _section(README, "A quick tour, offline")
    assert tour is not None, "README has no '## A quick tour, offline' section"
    calls = []
    for line in tour.splitlines():
        if line.startswith("video-research call "):
            words = shlex.split(line)
            assert words[3] == "--json", line
            calls.append((words[2], words[4]))
    return calls


TOUR_CALLS = _tour_calls()


# -- settings -------------------------------------------------------------------------


@pytest.mark.parametrize("env", sorted(env_names().values()))
def test_every_env_var_is_documented(env):
    assert re.search(rf"^\| `{env}` \|", CONFIGURATION, re.M), f"{env} not in docs/configuration.md"


# -- tools ----------------------------------------------------------------------------


@pytest.mark.parametrize("tool", sorted(dispatch.TOOLS))
def test_every_tool_is_documented(tool):
    """Each tool is described in its toolset's section, on the page of its area."""
    toolset = dispatch.TOOLS[tool].toolset
    sections = [
        section for text in TOOL_PAGES.values() if (section := _section(text, toolset)) is not None
    ]
    assert len(sections) == 1, f"toolset {toolset} needs exactly one '## {toolset}' in docs/tools/"
    assert f"`{tool}`" in sections[0], f"{tool} is not in the '## {toolset}' section"


@pytest.mark.parametrize("tool", sorted(dispatch.TOOLS))
def test_every_tool_is_in_the_readme_table(tool):
    assert tool in README_TOOL_ROWS, f"{tool} is missing from the README's tool table"
    _, toolset, default, summary = README_TOOL_ROWS[tool]
    spec = dispatch.TOOLS[tool]
    assert re.fullmatch(rf"\[{spec.toolset}\]\(docs/tools/\w+\.md#{spec.toolset}\)", toolset)
    assert (default == "✓") == (tool in DEFAULT_TOOLS), f"{tool}: default profile mark"
    assert summary, f"{tool} needs a one-line description"


def test_readme_table_names_only_real_tools():
    assert set(README_TOOL_ROWS) == set(dispatch.TOOLS)


# -- the README -----------------------------------------------------------------------


def test_readme_is_short():
    lines = README.count("\n")
    assert lines <= README_MAX_LINES, f"README has {lines} lines; move detail into docs/"


def test_setup_commands():
    assert "make run" in README and "make test" in README
    for target in ("run", "test", "docs", "bench", "lint"):
        assert re.search(rf"^{target}:", MAKEFILE, re.M), target
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    assert "set -euo pipefail" in ci
    assert re.search(r"^make test$", ci, re.M) and re.search(r"^make lint$", ci, re.M)
    assert ci.strip().endswith("make docs")


def test_readme_keeps_the_client_snippets():
    assert '"mcpServers"' in README  # Claude Desktop
    assert "claude mcp add video-research" in README  # Claude Code
    assert '"servers"' in README and "VIDEO_RESEARCH_TOOLSETS" in README  # kryten-llm


def test_tour_runs_offline_and_sets_the_file_roots():
    tour = _section(README, "A quick tour, offline")
    assert "unset GEMINI_API_KEY" in tour
    assert "export VIDEO_RESEARCH_FILE_ROOTS=" in tour
    called = {tool for tool, _ in TOUR_CALLS}
    for tool in ("index_transcript_files", "semantic_search_transcripts", "document_ingest"):
        assert tool in called
    assert "knowledge_ask" in called and '"answered_by": "retrieval"' in tour


@pytest.mark.parametrize(("tool", "arguments"), TOUR_CALLS, ids=[t for t, _ in TOUR_CALLS])
def test_tour_calls_are_valid(tool, arguments):
    """A tour step calls a tool the CLI reaches with arguments its schema accepts."""
    assert tool in dispatch.TOOLS
    errors = contracts.validation_errors(dispatch.TOOLS[tool].input_path, json.loads(arguments))
    assert not errors, errors


def test_tour_copies_files_that_exist():
    """The transcripts the tour indexes are the repository's own sample files."""
    tour = _section(README, "A quick tour, offline")
    copies = [shlex.split(line)[1:-1] for line in tour.splitlines() if line.startswith("cp ")]
    assert copies, "the tour copies no sample transcripts"
    for source in (s for sources in copies for s in sources):
        assert list(REPO_ROOT.glob(source)), f"{source} matches no file"


# -- links ----------------------------------------------------------------------------


def _links(text: str) -> list[str]:
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return [
        link for link in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"^[a-z]+:", link)
    ]


@pytest.mark.parametrize("link", sorted(set(_links(README))))
def test_readme_links_land(link):
    """README links into docs/ are relative paths that work on GitHub, anchors included."""
    target, _, anchor = link.partition("#")
    path = REPO_ROOT / target if target else REPO_ROOT / "README.md"
    assert path.exists(), f"{link}: {path} does not exist"
    if anchor:
        assert anchor in _anchors(path), f"{link}: no heading with anchor #{anchor}"


def test_every_docs_page_is_in_the_navigation():
    pages = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    missing = [page for page in pages if page not in MKDOCS]
    assert not missing, f"pages missing from mkdocs.yml nav: {missing}"


def test_docs_build_is_strict_about_links():
    assert re.search(r"^strict: true$", MKDOCS, re.M)
    assert re.search(r"^\s+anchors: warn$", MKDOCS, re.M)
    assert re.search(r"^\s+not_found: warn$", MKDOCS, re.M)
