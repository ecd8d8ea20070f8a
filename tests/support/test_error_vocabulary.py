"""One error vocabulary: every category the server can raise is in the documented list.

The walk reads the server's own code (every `ErrorCategory.X` it names, every literal
category it writes) and the mapping of outside failures (categorize_error's patterns and
HTTP statuses), and checks each against the table in docs/errors.md and the enum of
schemas/common/tool_error.json. A category added in code and not documented fails here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.calls import call_error
from video_research.support import contracts, errors
from video_research.support.errors import ErrorCategory
from video_research.tools import batches

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "video_research"


def documented() -> list[str]:
    """The categories of the table in docs/errors.md ("| `name` | ...")."""
    text = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    section = text.split("## Categories", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.M)


def raised_in_code() -> dict[str, set[str]]:
    """category value -> the files that name it: `ErrorCategory.X`, `C.X`, `category="x"`."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            value = None
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("ErrorCategory", "C")
                and node.attr.isupper()
            ):
                value = ErrorCategory[node.attr].value
            elif (
                isinstance(node, ast.keyword)
                and node.arg == "category"
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                value = node.value.value
            if value is not None:
                found.setdefault(value, set()).add(str(path.relative_to(ROOT)))
    return found


# Old names the code may still spell, each with where and why: the files being rewritten
# by another change (their line is replaced there; then the entry and the alias go).
PENDING_OLD_NAMES: dict[str, str] = {}


OLD_NAME = re.compile(r"\b(ErrorCategory|C)\.(" + "|".join(errors.OLD_VALUES) + r")\b")


def test_the_code_names_no_old_category():
    """One vocabulary in the code too: no `ErrorCategory.URL_INVALID`, no alias in the enum.

    Old values stay readable (errors.OLD_VALUES) for what was stored or sent before; the
    code itself names only the fifteen categories.
    """
    aliases = {name for name, member in ErrorCategory.__members__.items() if name != member.name}
    assert aliases <= set(PENDING_OLD_NAMES), aliases - set(PENDING_OLD_NAMES)
    named: dict[str, set[str]] = {}
    for path in [
        *PACKAGE.rglob("*.py"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "bundle").glob("*.py"),
    ]:
        if "node_modules" in path.parts:
            continue
        rel = str(path.relative_to(ROOT))
        text = path.read_text(encoding="utf-8")
        if not OLD_NAME.search(text):
            continue  # parsed only where an old name is written at all
        for node in ast.walk(ast.parse(text)):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("ErrorCategory", "C")
                and node.attr in errors.OLD_VALUES
                and PENDING_OLD_NAMES.get(node.attr) != rel
            ):
                named.setdefault(node.attr, set()).add(rel)
    assert not named, f"old category names in the code (name the new category): {named}"


def test_code_names_categories_at_all():
    """The walk sees what it should (a broken walk would pass everything below)."""
    found = raised_in_code()
    assert {"invalid_input", "not_found", "network", "internal_error"} <= set(found)


def test_every_category_the_code_raises_is_documented():
    listed = set(documented())
    missing = {
        value: sorted(files) for value, files in raised_in_code().items() if value not in listed
    }
    assert not missing, f"categories raised but not in docs/errors.md: {missing}"


def test_every_category_outside_failures_map_to_is_documented():
    listed = set(documented())
    mapped = {category.value for category, _hint, _pattern in errors._PATTERNS}
    mapped |= {category.value for category, _hint in errors._STATUS_CATEGORIES.values()}
    mapped |= {category.value for category in batches._REASON_CATEGORY.values()}
    assert mapped <= listed, mapped - listed


def test_docs_schema_and_enum_list_the_same_categories():
    schema = contracts.load_schema("common/tool_error.json")
    enum = schema["properties"]["category"]["enum"]
    members = [category.value for category in ErrorCategory]
    assert documented() == members == list(errors.CATEGORIES)
    assert sorted(enum) == sorted(members)


def test_one_case_and_no_old_names_in_docs():
    """Only lower-case snake categories, and the old upper-case names only in the table's
    `Replaces` column."""
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", c) for c in documented())
    old = ("FILE_NOT_FOUND", "URL_INVALID", "NETWORK_ERROR", "FILE_UNSUPPORTED", "nats_error")
    for page in (ROOT / "docs").rglob("*.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            if page.name == "errors.md" and line.startswith("| `"):
                continue
            if page.name == "errors.md" and "ErrorCategory" in line:
                continue
            assert not any(f"`{name}`" in line for name in old), f"{page.name}: {line}"


async def test_a_missing_file_is_one_category_in_every_tool_that_reads_files(tmp_path):
    """The same missing path, one category: video, documents and media tools alike."""
    gone = tmp_path / "no-such-dir" / "talk.mp4"
    seen = set()
    for tool, args in (
        ("video_analyze", {"file_path": str(gone)}),
        ("media_frames", {"path": str(gone)}),
        ("document_ingest", {"paths": [str(gone.with_suffix(".pdf"))]}),
        ("index_transcript_files", {"path": str(gone.parent)}),
        ("index_media_files", {"paths": [str(gone)]}),
    ):
        seen.add((await call_error(tool, args))["category"])
    assert seen == {"not_found"}


@pytest.mark.parametrize(
    ("given", "local"),
    [
        ("/srv/talks/keynote.mp4", True),
        ("~/talks/keynote.mp4", True),
        ("./keynote.mp4", True),
        ("C:\\talks\\keynote.mp4", True),
        ("file:///srv/talks/keynote.mp4", True),
        ("talks/keynote.mp4", True),
        ("https://www.youtube.com/watch?v=dQw4w9WgXcQ", False),
        ("youtu.be/dQw4w9WgXcQ", False),
    ],
)
def test_a_local_path_is_recognised(given, local):
    from video_research.video.input import looks_like_local_path

    assert looks_like_local_path(given) is local


async def test_a_local_path_sent_as_url_is_told_about_file_path():
    for given in ("/srv/talks/keynote.mp4", "keynote.mp4"):
        error = await call_error("video_analyze", {"url": given})
        assert error["category"] == "invalid_input"
        assert "file_path" in error["error"] + error["hint"], error
