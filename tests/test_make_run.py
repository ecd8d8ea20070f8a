"""`make run` serves MCP on stdio: an MCP client spawning it gets clean protocol on stdout.

The environment is already installed by `make test`, so the install step is skipped here
(`-o`); a fresh clone's `make test` proves the installing half.
"""

from __future__ import annotations

import shutil

import pytest

from tests.helpers import REPO_ROOT, mcp_client

pytestmark = pytest.mark.slow


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
async def test_make_run_answers_tools_list(server_env):
    if not (REPO_ROOT / ".venv" / "bin" / "python").exists():
        pytest.skip("no .venv in the checkout (run `make test` first)")
    args = ["-o", ".venv/.installed-runtime", "-C", str(REPO_ROOT), "run"]
    async with mcp_client(server_env, command="make", args=args) as session:
        tools = {t.name for t in (await session.list_tools()).tools}
    assert {"infra_cache", "infra_configure"} <= tools
