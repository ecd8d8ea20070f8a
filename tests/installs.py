"""uv, the way the installed-package tests call it: from its package cache alone when
that holds everything (no network after a first run), with nothing of the checkout on the
path. The wheel and its environments are fixtures (tests/fixtures/installs.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
UV = shutil.which("uv", path=str(BIN)) or shutil.which("uv")
UVX = shutil.which("uvx", path=str(BIN)) or shutil.which("uvx")

NETWORK = ("SSL_CERT_FILE", "SSL_CERT_DIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "UV_")
"""What uv needs of the runner's environment to reach the package index."""


def _uv_env() -> dict[str, str]:
    """uv's own environment: the real package cache, the Python running the tests, the
    runner's network settings, and nothing that points into the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env["UV_PYTHON_DOWNLOADS"] = "never"
    env.setdefault("UV_CACHE_DIR", str(Path.home() / ".cache" / "uv"))
    return env


def _uv(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None):
    """A uv command from the cache alone when it holds everything (fast, and no network
    needed after a first run), else with the package index."""
    command, *rest = args
    offline = subprocess.run(
        [str(command), "--offline", *map(str, rest)],
        env=env or _uv_env(),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if offline.returncode == 0:
        return offline
    return _run(*args, env=env, cwd=cwd)


def _run(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None):
    done = subprocess.run(
        [str(a) for a in args],
        env=env or _uv_env(),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done
