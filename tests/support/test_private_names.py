"""No module uses another module's private names.

A leading underscore says "only this module relies on it", so it can change without
looking further. A name another module needs is public, with a docstring that says why.
import-linter checks which modules import which (`make lint`); this checks the names.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "video_research"

KNOWN: set[str] = set()
"""Uses that remain, each to be removed from this set as its owner makes the name public."""


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def private_uses(path: Path) -> set[str]:
    """`file: module._name` for each private name of another of our modules `path` uses."""
    importer = _module_name(path)
    tree = ast.parse(path.read_text(), str(path))
    shown = path.relative_to(REPO_ROOT).as_posix()
    found: set[str] = set()
    modules: dict[str, str] = {}  # local name -> one of our modules
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("video_research"):
                    local = alias.asname or alias.name.split(".")[0]
                    modules[local] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, importer, path.name == "__init__.py")
            if not source.startswith("video_research") or source == importer:
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    found.add(f"{shown}: {source}.{alias.name}")
                modules[alias.asname or alias.name] = f"{source}.{alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _is_private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            found.add(f"{shown}: {modules[node.value.id]}.{node.attr}")
    return found


def test_no_module_uses_another_modules_private_names():
    found = set().union(*(private_uses(path) for path in sorted(PACKAGE.rglob("*.py"))))
    assert sorted(found - KNOWN) == []


def test_the_known_uses_still_exist():
    """A use made public leaves KNOWN, so the exceptions only ever shrink."""
    found = set().union(*(private_uses(path) for path in sorted(PACKAGE.rglob("*.py"))))
    assert sorted(KNOWN - found) == []
