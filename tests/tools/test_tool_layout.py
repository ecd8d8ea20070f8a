"""One name per idea: each toolset has one table module and one handler module of its
name, tools/list keeps its order, and handlers stay thin (no handler imports another,
none reads the global settings)."""

from __future__ import annotations

import ast
import importlib
import itertools
import pkgutil
from pathlib import Path

from video_research import handlers
from video_research.config import load_settings
from video_research.tools import dispatch, table, toolsets

HANDLERS_DIR = Path(handlers.__file__).parent
TABLE_MODULES = sorted(
    info.name for info in pkgutil.iter_modules(table.__path__) if info.name != "spec"
)

LISTED_TOOLSETS = [
    "infra",
    "video",
    "youtube",
    "research",
    "content",
    "search",
    "knowledge",
    "deepresearch",
    "research",  # research_document, listed after the deepresearch tools from the start
    "papers",
    "transcripts",
    "documents",
    "media",
    "catalog",
    "playlists",
    "queue",
    "marathons",
    "admin",
    "toolsets",
]


def test_every_toolset_has_one_table_module_and_one_handler_module_of_its_name():
    used = {spec.toolset for spec in dispatch.TOOLS.values()}
    # context.py is the one module every handler shares: what a handler knows of its call.
    handler_modules = sorted(
        p.stem for p in HANDLERS_DIR.glob("*.py") if p.stem not in ("__init__", "context")
    )
    assert sorted(used) == TABLE_MODULES
    assert handler_modules == sorted(used)


def test_a_table_module_lists_its_own_toolset_handled_by_its_own_handler_module():
    listed = []
    for name in TABLE_MODULES:
        module = importlib.import_module(f"video_research.tools.table.{name}")
        for spec in module.SPECS:
            assert spec.toolset == name, spec.name
            assert spec.handler.partition(":")[0] == name, spec.name
            assert dispatch.TOOLS[spec.name] is spec
            listed.append(spec.name)
    assert sorted(listed) == sorted(dispatch.TOOLS)


def test_tools_list_order_toolset_by_toolset():
    runs = [key for key, _ in itertools.groupby(s.toolset for s in dispatch.TOOLS.values())]
    assert runs == LISTED_TOOLSETS


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_handlers_import_no_other_handler_and_never_read_the_global_settings():
    for path in HANDLERS_DIR.glob("*.py"):
        imported = _imports(path)
        others = [
            n
            for n in imported
            if n.startswith("video_research.handlers")
            and not n.startswith("video_research.handlers.context")
        ]
        assert not others, path.name
        assert "video_research.config.get_config" not in imported, path.name
        assert "get_config" not in path.read_text(), path.name


def test_only_the_entry_points_read_the_process_wide_settings():
    """Code below the entry points reads the settings of the Services in force
    (`current_settings()`), so a call sees its own and a test changes them without a
    global; `get_config()` is for config/ itself, cli.py and server/ (which build the
    Services they start with) and the Services that follows it."""
    package = HANDLERS_DIR.parent
    entry_points = ("config/", "server/", "cli.py", "support/services.py")
    readers = [
        str(path.relative_to(package))
        for path in sorted(package.rglob("*.py"))
        if "get_config()" in path.read_text()
        and not path.relative_to(package).as_posix().startswith(entry_points)
    ]
    assert readers == []


def test_lookup_without_session_toolsets_is_what_every_session_starts_with():
    settings = load_settings({"VIDEO_RESEARCH_TOOLSETS": "infra"})
    assert toolsets.lookup("infra_cache", settings) is dispatch.TOOLS["infra_cache"]
    assert toolsets.lookup("web_search", settings) is None
    session = toolsets.SessionToolsets(enabled={"search"})
    assert toolsets.lookup("web_search", settings, session) is dispatch.TOOLS["web_search"]
    assert dispatch.lookup is toolsets.lookup
