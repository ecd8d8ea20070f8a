"""tests/helpers.py imports only the standard library at module level: the fuzz runner
imports it from its own environment (tests/fuzz/requirements.txt), which has the MCP client
(used inside functions) but none of the server's packages."""

from __future__ import annotations

import ast
import sys

from tests.helpers import REPO_ROOT


def test_helpers_import_only_the_standard_library_at_module_level():
    tree = ast.parse((REPO_ROOT / "tests" / "helpers.py").read_text())
    imported = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    assert sorted(imported - set(sys.stdlib_module_names) - {"__future__"}) == []
