"""catalog_add follows the one rule of updates: a field left out keeps its stored value,
a field given replaces it, and an empty list clears (docs/updates.md)."""

from __future__ import annotations

from tests.calls import call_ok


async def test_left_out_fields_keep_their_values_and_an_empty_list_clears():
    first = {
        "video_id": "dQw4w9WgXcQ",
        "title": "A video",
        "categories": ["music", "classics"],
        "duration_seconds": 212,
        "thumbnail_url": "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg",
    }
    await call_ok("catalog_add", first)
    kept = (await call_ok("catalog_add", {"video_id": "dQw4w9WgXcQ", "title": "Renamed"}))["video"]
    assert kept["title"] == "Renamed"
    assert sorted(kept["categories"]) == ["classics", "music"]
    assert kept["duration_seconds"] == 212 and kept["thumbnail_url"] == first["thumbnail_url"]
    cleared = await call_ok(
        "catalog_add", {"video_id": "dQw4w9WgXcQ", "title": "Renamed", "categories": []}
    )
    assert cleared["video"]["categories"] == []
