"""The README stays true: every setting and every tool is documented, and it names the
two set-up commands."""

from __future__ import annotations

import re

import pytest

from tests.helpers import REPO_ROOT
from video_research.config import env_names
from video_research.tools import dispatch

README = (REPO_ROOT / "README.md").read_text()
MAKEFILE = (REPO_ROOT / "Makefile").read_text()


@pytest.mark.parametrize("env", sorted(env_names().values()))
def test_every_env_var_is_documented(env):
    assert f"`{env}`" in README


@pytest.mark.parametrize("tool", sorted(dispatch.TOOLS))
def test_every_tool_is_documented(tool):
    assert f"`{tool}`" in README


def test_setup_commands():
    assert "make run" in README and "make test" in README
    for target in ("run", "test", "bench", "lint"):
        assert re.search(rf"^{target}:", MAKEFILE, re.M), target
    assert (REPO_ROOT / ".ci" / "run").read_text().strip().endswith("make test")
