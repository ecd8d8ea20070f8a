"""Which tests cover each tool, written on the tool's doc page from the tests themselves.

`python -m tests.docs_tool_tests --write` rewrites the "## Tests" section at the end of
every page of docs/tools/ (between the `tool-tests` markers): for each tool of the page's
toolsets, the test files `make test` collects that call it by name (the name as a string
literal, as a call, a contract or a schema test writes it). tests/test_docs_reference.py
regenerates the sections and fails when a page differs, so a new test file or tool shows
on its page with the change that adds it.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
PAGES = ROOT / "docs" / "tools"
START = "<!-- tool-tests:start (written by `python -m tests.docs_tool_tests --write`) -->"
END = "<!-- tool-tests:end -->"
SKIPPED_DIRS = {"bench", "fuzz", "data", "node_modules", "__pycache__"}
"""Folders `make test` does not collect (pyproject's norecursedirs) or that hold no tests."""


@cache
def collected_modules() -> dict[str, str]:
    """Every test module `make test` collects: its path from the repository root -> text."""
    files = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        if SKIPPED_DIRS.isdisjoint(path.relative_to(TESTS).parts[:-1]):
            files[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    return files


def names_tool(text: str, tool: str) -> bool:
    """Whether a test module names `tool` as a string literal ("tool" or 'tool')."""
    return re.search(rf"""["']{re.escape(tool)}["']""", text) is not None


def covering(tool: str) -> list[str]:
    """The test files that name `tool`, in path order."""
    return [path for path, text in collected_modules().items() if names_tool(text, tool)]


def toolsets_of(page: str) -> list[str]:
    """The toolsets a tool page documents: its `## <toolset>` headings that are toolsets."""
    from video_research.tools import dispatch

    toolsets = {spec.toolset for spec in dispatch.TOOLS.values()}
    return [h for h in re.findall(r"^## (\S+)$", page, re.M) if h in toolsets]


def section(page: str) -> str:
    """The generated "## Tests" section for a tool page's text (empty for a page with no
    toolset, such as the index)."""
    from video_research.tools import dispatch

    toolsets = toolsets_of(page)
    if not toolsets:
        return ""
    lines = [
        "## Tests",
        "",
        START,
        "The test files that call each tool by name (`make test` runs them all; one file",
        "alone: `.venv/bin/python -m pytest FILE -q`).",
        "",
        "| Tool | Tests |",
        "|---|---|",
    ]
    for name, spec in dispatch.TOOLS.items():
        if spec.toolset in toolsets:
            files = ", ".join(f"`{path}`" for path in covering(name)) or "**none**"
            lines.append(f"| `{name}` | {files} |")
    lines += ["", END]
    return "\n".join(lines) + "\n"


def rendered(page: str) -> str:
    """The page with its "## Tests" section as the tests now say (replaced or appended)."""
    body = page
    if START in page:
        head = page[: page.index(START)]
        head = head[: head.rindex("## Tests")]
        body = head + page[page.index(END) + len(END) :].lstrip("\n")
    new = section(body)
    if not new:
        return page
    return body.rstrip("\n") + "\n\n" + new


def pages() -> list[Path]:
    return sorted(PAGES.glob("*.md"))


def main(argv: list[str]) -> int:
    stale = []
    for path in pages():
        text = path.read_text(encoding="utf-8")
        new = rendered(text)
        if new != text:
            stale.append(path.relative_to(ROOT).as_posix())
            if "--write" in argv:
                path.write_text(new, encoding="utf-8")
    verb = "rewrote" if "--write" in argv else "stale"
    for name in stale:
        print(f"{verb}: {name}", file=sys.stderr)
    return 1 if stale and "--write" not in argv else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
