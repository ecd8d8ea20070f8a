"""`python -m tests.fuzz`: schema-driven fuzzing of every tool (see runner.py; `make fuzz`)."""

import asyncio

from tests.fuzz.runner import main

raise SystemExit(asyncio.run(main()))
