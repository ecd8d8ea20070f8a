"""Time windows a caller gives (`start_time`/`end_time`, `published_after`/`published_before`)
must hold something: an inverted or empty window matches nothing, or (for overlap filters)
only unrelated moments that straddle it, and answering with those hides the mistake.
Every tool that takes a window checks it here, before it searches."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from video_research.support.errors import invalid_input


def _seconds(value: float) -> str:
    return f"{value:g}"


def check_seconds(
    start: float | None,
    end: float | None,
    *,
    start_name: str = "start_time",
    end_name: str = "end_time",
) -> None:
    """invalid_input when `start` is not before `end` (both seconds into a video)."""
    if start is None or end is None or start < end:
        return
    if start == end:
        raise invalid_input(
            f"{start_name} and {end_name} are both {_seconds(start)} s: the window is empty.",
            hint=f"Give a window with {start_name} before {end_name}, e.g. {start_name} "
            f"{_seconds(max(start - 30, 0))} and {end_name} {_seconds(start + 30)}; or leave "
            f"{end_name} out to search to the end.",
            window={start_name: start, end_name: end},
        )
    raise invalid_input(
        f"{start_name} ({_seconds(start)} s) is after {end_name} ({_seconds(end)} s): the window "
        "is inverted, so nothing lies in it.",
        hint=f"Swap them ({start_name} {_seconds(end)}, {end_name} {_seconds(start)}), or leave "
        f"one out.",
        window={start_name: start, end_name: end},
    )


def _instant(value: str, *, end_of_day: bool) -> datetime | None:
    """`value` (ISO 8601 date or date-time) as an aware datetime; None if unreadable."""
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    date_only = "T" not in value and " " not in value.strip()
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return (
        parsed + timedelta(days=1) - timedelta(microseconds=1)
        if date_only and end_of_day
        else parsed
    )


def check_dates(
    after: str | None,
    before: str | None,
    *,
    after_name: str = "published_after",
    before_name: str = "published_before",
) -> None:
    """invalid_input when `after` is later than `before` (a date-only `before` counts its
    whole day, as the filters do)."""
    if not after or not before:
        return
    start = _instant(after, end_of_day=False)
    end = _instant(before, end_of_day=True)
    if start is None or end is None or start <= end:
        return
    raise invalid_input(
        f"{after_name} ({after}) is later than {before_name} ({before}): the window is "
        "inverted, so no video was published in it.",
        hint=f"Swap them ({after_name} {before}, {before_name} {after}), or leave one out.",
        window={after_name: after, before_name: before},
    )
