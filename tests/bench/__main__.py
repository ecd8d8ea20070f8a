"""Run the benchmarks: `python -m tests.bench [name ...]` (names are bench_<name>.py)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import tempfile
import time

import tests.bench as package


def main(argv: list[str]) -> int:
    available = sorted(
        m.name[len("bench_") :]
        for m in pkgutil.iter_modules(package.__path__)
        if m.name.startswith("bench_")
    )
    chosen = argv or available
    unknown = set(chosen) - set(available)
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(sorted(unknown))}; available: {', '.join(available)}",
            file=sys.stderr,
        )
        return 2
    # The audit trail of the benchmarks' own calls goes to a file, not between the
    # figures, in a folder removed when the run ends.
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as folder:
        os.environ.setdefault("VIDEO_RESEARCH_AUDIT_LOG", os.path.join(folder, "audit.jsonl"))
        return _run(chosen)


def _run(chosen: list[str]) -> int:
    failures = 0
    for name in chosen:
        module = importlib.import_module(f"tests.bench.bench_{name}")
        started = time.perf_counter()
        try:
            module.main()
        except Exception as exc:  # keep going: one broken benchmark must not hide the others
            failures += 1
            print(f"!! benchmark {name} failed: {type(exc).__name__}: {exc}", flush=True)
        print(f"   ({name} took {time.perf_counter() - started:.1f} s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
