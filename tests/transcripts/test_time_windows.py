"""An inverted or empty time window is refused in plain words, before any search runs:
it would match nothing, or (the moments overlap it) only moments that straddle it."""

from __future__ import annotations

import pytest

from tests.calls import call_error
from video_research.support import windows
from video_research.support.errors import ToolFailure


@pytest.mark.parametrize(
    "window,said",
    [
        ({"start_time": 500, "end_time": 100}, "start_time (500 s) is after end_time (100 s)"),
        ({"start_time": 90.5, "end_time": 90.5}, "are both 90.5 s: the window is empty"),
        (
            {"published_after": "2024-05-02", "published_before": "2024-05-01"},
            "published_after (2024-05-02) is later than published_before (2024-05-01)",
        ),
    ],
)
async def test_semantic_search_refuses_an_inverted_or_empty_window(window, said):
    error = await call_error(
        "semantic_search_transcripts", {"query": "tides", "video_ids": ["dQw4w9WgXcQ"], **window}
    )
    assert error["category"] == "invalid_input"
    assert said in error["error"]
    assert "Swap them" in error["hint"] or "window with start_time before end_time" in error["hint"]


@pytest.mark.parametrize(
    "start,end",
    [(None, 100), (100, None), (100, 500), (0, 0.5)],
)
def test_open_or_ordered_windows_pass(start, end):
    windows.check_seconds(start, end)


@pytest.mark.parametrize(
    "after,before",
    [
        ("2024-05-01", "2024-05-01"),  # one whole day
        ("2024-05-01T10:00:00Z", "2024-05-01"),  # before counts its whole day
        ("2024-05-01T10:00:00+02:00", "2024-05-01T09:00:00Z"),
        ("not a date", "2024-05-01"),  # left to the search's own reading
    ],
)
def test_date_windows_that_hold_a_moment_pass(after, before):
    windows.check_dates(after, before)


def test_a_date_time_after_the_end_of_its_day_is_inverted():
    with pytest.raises(ToolFailure):
        windows.check_dates("2024-05-02T00:00:00Z", "2024-05-01")
