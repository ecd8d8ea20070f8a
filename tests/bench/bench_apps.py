"""The MCP Apps views: what each costs a host (gzipped size, beside the 20 KB budget and
beside the reference SDK's App class alone), what linking them adds to the default
profile's tools/list, and the first paint of 50 moments in headless Chromium (beside
10 moments, the default page, measured in the same browser)."""

from __future__ import annotations

import gzip
import shutil
import tempfile
from pathlib import Path

from tests.bench.common import header, median, report
from tests.server import test_apps_browser as browser_tests
from video_research.config import load_settings
from video_research.server import apps, tool_listing
from video_research.tools import dispatch

BUDGET_BYTES = 20 * 1024
REFERENCE_APP = (
    browser_tests.HOST / "node_modules/@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js"
)
PAINT_RUNS = 5


def _sizes() -> None:
    header("MCP Apps: view size, gzipped")
    reference = len(gzip.compress(REFERENCE_APP.read_bytes())) if REFERENCE_APP.exists() else 0
    for view in apps.VIEWS.values():
        size = len(gzip.compress(apps.html(view.name).encode()))
        report(
            f"{view.name} view (KB gz)",
            size / 1024,
            "KB",
            "budget",
            BUDGET_BYTES / 1024,
            higher_is_better=False,
        )
        if reference:
            report(
                f"{view.name} view (KB gz)",
                size / 1024,
                "KB",
                "ext-apps App class alone",
                reference / 1024,
                higher_is_better=False,
            )


def _tokens() -> None:
    header("MCP Apps: tools/list tokens of the default profile")
    default = tool_listing.definitions(dispatch.enabled_tools(load_settings({})))
    report(
        "with the views linked",
        tool_listing.tokens(apps.with_views(default)),
        "tokens",
        "without (a host without Apps)",
        tool_listing.tokens(default),
        higher_is_better=False,
    )


def _paint() -> None:
    header("MCP Apps: tool result to first paint, headless Chromium")
    if not (browser_tests.CHROMIUM.exists() and browser_tests.BUNDLE.exists()):
        print("skipped: needs /usr/bin/chromium and `make apps-host`", flush=True)
        return
    root = Path(tempfile.mkdtemp(prefix="bench-apps-"))
    shutil.copy(browser_tests.TRANSCRIPTS / "rust_borrowing.srt", root)
    with browser_tests.apps_server(root) as server, browser_tests.chromium() as browser:
        page = browser_tests.host_page(browser, server)
        path = str(root / "rust_borrowing.srt")
        browser_tests._call(page, "index_transcript_files", {"path": path, "fetch_metadata": False})
        moments = browser_tests.real_moments(page)
        figures: dict[int, list[float]] = {10: [], 50: []}
        for _ in range(PAINT_RUNS):
            for count in figures:
                figures[count].append(browser_tests.first_paint_ms(page, count, moments))
    report(
        "50 moments (ms, median)",
        median(figures[50]),
        "ms",
        "10 moments",
        median(figures[10]),
        higher_is_better=False,
    )


def main() -> None:
    _sizes()
    _tokens()
    _paint()
