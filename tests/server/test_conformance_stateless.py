"""The official MCP conformance suite's stateless 2026-07-28 scenarios that need no
fixture, against `serve --transport http` (about 30 s): what CI runs of `make
conformance` (which adds both revisions' whole requirement sets and the SDK's own
conformance server beside ours; see tests/conformance/run.py)."""

from __future__ import annotations

import shutil

import pytest

from tests.conformance import run

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def suite() -> None:
    if not (run.NODE.exists() and run.SUITE.exists()) and shutil.which("npm") is None:
        pytest.skip("npm is not installed: the conformance suite cannot be installed")
    run.install()


def test_the_stateless_scenarios_pass_on_the_2026_wire(suite):
    verdicts = run.against(run.start_ours, "2026-07-28", run.CI_SCENARIOS)
    assert set(verdicts) == set(run.CI_SCENARIOS), "a scenario did not report"
    failed = {name: v.first_failure for name, v in verdicts.items() if not v.ok}
    assert not failed, failed
    assert sum(v.schema_violations for v in verdicts.values()) == 0
    # every check of a judged scenario ran, but server-stateless's four that need the
    # suite's test_* tools
    assert {name: v.untestable for name, v in verdicts.items() if v.untestable} == {
        "server-stateless": 4
    }
