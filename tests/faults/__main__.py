"""`make faults`: run every fault row (tests/faults, slow rows included) and print the matrix.

python -m tests.faults [pytest args]: each row is a test that injects its fault into a
running server and fills in (fault, tool, result, recovery time, data lost); the table is
printed after pytest's own report, and the exit status is pytest's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLUMNS = ("fault", "tool", "outcome", "result", "recovery_s", "data_lost")


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def render(rows: list[dict]) -> str:
    """The matrix as a plain table, one row per fault, long results wrapped."""
    widths = {"fault": 44, "tool": 24, "outcome": 7, "result": 60, "recovery_s": 10, "data_lost": 9}
    header = "  ".join(name.ljust(widths[name]) for name in COLUMNS)
    lines = [header, "  ".join("-" * widths[name] for name in COLUMNS)]
    for row in rows:
        wrapped = {
            name: textwrap.wrap(_cell(row.get(name)), widths[name]) or [""] for name in COLUMNS
        }
        if row.get("outcome") == "skipped" and row.get("notes"):
            wrapped["result"] = textwrap.wrap(row["notes"][0], widths["result"])
        for i in range(max(len(cells) for cells in wrapped.values())):
            lines.append(
                "  ".join(
                    (wrapped[name][i] if i < len(wrapped[name]) else "").ljust(widths[name])
                    for name in COLUMNS
                ).rstrip()
            )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="faults-") as folder:
        matrix = Path(folder) / "matrix.jsonl"
        env = dict(os.environ, FAULTS_ALL="1", FAULTS_MATRIX=str(matrix))
        code = subprocess.call(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(HERE), *argv],
            env=env,
        )
        rows = (
            [json.loads(line) for line in matrix.read_text().splitlines()]
            if matrix.exists()
            else []
        )
    print("\nFault matrix (each row: the fault injected into a running server during real work)\n")
    print(render(rows))
    lost = sum(row.get("data_lost") or 0 for row in rows)
    failed = [row for row in rows if row.get("outcome") == "failed"]
    print(f"\n{len(rows)} rows, {len(failed)} failed, data lost in all: {lost}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
