"""Catalog, playlists and marathons through the dispatcher, on a real SQLite file."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from tests.catalog_helpers import ADMIN, BLESSED, VIEWER, call, ok
from video_research.catalog import feed
from video_research.catalog.db import get_db


async def test_search_partial_and_prefix(catalog):
    page = await ok("catalog_search", {"q": "friday 13"})
    assert [v["video_id"] for v in page["items"]] == ["f13-1", "f13-2"]
    assert page["total"] == 2 and page["snapshot_id"]
    assert [v["video_id"] for v in (await ok("catalog_search", {"q": "nightm"}))["items"]] == [
        "elm"
    ]
    # a fragment inside a word still matches
    assert [v["video_id"] for v in (await ok("catalog_search", {"q": "ween"}))["items"]] == [
        "halloween"
    ]


@pytest.mark.parametrize(
    "q", ['"', "friday OR", "NEAR(a b)", "title:friday", "*", "f13-1) OR 1=1 --", "%", "_", "'"]
)
async def test_search_is_safe_against_fts_syntax(catalog, q):
    outcome = await call("catalog_search", {"q": q})
    assert outcome.error is None, outcome.error
    assert outcome.result["total"] <= 2


async def test_search_categories_paging_and_snapshot(catalog):
    horror = await ok("catalog_search", {"categories": ["horror"], "limit": 2})
    assert horror["total"] == 4 and len(horror["items"]) == 2 and horror["has_more"]
    rest = await ok("catalog_search", {"categories": ["Horror"], "limit": 2, "offset": 2})
    ids = {v["video_id"] for v in horror["items"] + rest["items"]}
    assert ids == {"f13-1", "f13-2", "halloween", "elm"}
    assert rest["snapshot_id"] == horror["snapshot_id"]
    await ok(
        "catalog_add", {"video_id": "scream", "title": "Scream", "manifest_url": "https://m/s"}
    )
    after = await ok("catalog_search", {"categories": ["Horror"]})
    assert after["snapshot_id"] != horror["snapshot_id"]
    both = await ok("catalog_search", {"q": "friday", "categories": ["Slasher"]})
    assert both["total"] == 2
    bad = await call("catalog_search", {"limit": 101})
    assert bad.error.category == "invalid_input"


async def test_categories_and_get_video(catalog):
    cats = await ok("catalog_categories")
    assert cats["categories"] == ["Comedy", "Horror", "Slasher"]
    assert cats["video_counts"]["Horror"] == 4
    video = await ok("catalog_get_video", {"video_id": "unknown"}, VIEWER)
    assert video["duration_seconds"] is None and video["categories"] == []
    missing = await call("catalog_get_video", {"video_id": "nope"})
    assert missing.error.category == "not_found"


async def test_catalog_add_updates_and_youtube_default_url():
    first = await ok(
        "catalog_add", {"video_id": "D-lhorsDlUQ", "title": "Talk", "categories": ["A"]}
    )
    assert first["created"] and first["video"]["manifest_url"].endswith("v=D-lhorsDlUQ")
    again = await ok(
        "catalog_add", {"video_id": "D-lhorsDlUQ", "title": "Talk 2", "categories": ["B"]}
    )
    assert not again["created"] and again["video"]["categories"] == ["B"]
    no_url = await call("catalog_add", {"video_id": "custom-token", "title": "Custom"})
    assert no_url.error.category == "invalid_input" and "manifest_url" in no_url.error.error


async def test_catalog_add_keeps_what_it_is_not_given():
    """Leaving out categories or manifest_url keeps the entry's own, never wipes them."""
    custom = "https://media.example/talk.m3u8"
    await ok(
        "catalog_add",
        {"video_id": "D-lhorsDlUQ", "title": "Talk", "categories": ["A"], "manifest_url": custom},
    )
    again = await ok("catalog_add", {"video_id": "D-lhorsDlUQ", "title": "Talk, retitled"})
    video = again["video"]
    assert video["title"] == "Talk, retitled"
    assert video["categories"] == ["A"] and video["manifest_url"] == custom
    cleared = await ok(
        "catalog_add", {"video_id": "D-lhorsDlUQ", "title": "Talk", "categories": []}
    )
    assert cleared["video"]["categories"] == [] and cleared["video"]["manifest_url"] == custom


async def test_remove_reports_playlists(catalog):
    made = await ok("playlist_create", {"name": "Slashers", "video_ids": ["f13-1", "f13-2"]})
    removed = await ok("catalog_remove", {"video_ids": ["f13-1", "ghost"]})
    assert removed == {
        "removed": ["f13-1"],
        "not_found": ["ghost"],
        "playlists_affected": [made["playlist_id"]],
        "snapshot_id": removed["snapshot_id"],
    }
    playlist = await ok("playlist_get", {"playlist_id": made["playlist_id"]})
    assert [i["video_id"] for i in playlist["items"]] == ["f13-2"]


async def test_from_youtube_feeds_the_catalog():
    written = await feed.from_youtube(
        [
            {
                "video_id": "abcdefghijk",
                "title": "A talk",
                "duration_seconds": 60,
                "category_id": "28",
            },
            {"video_id": "", "title": "broken"},
        ],
        source_tool="video_metadata",
    )
    assert written == 1
    video = await ok("catalog_get_video", {"video_id": "abcdefghijk"})
    assert video["categories"] == ["Science & Technology"] and video["source"] == "video_metadata"


async def test_a_feed_tells_the_servers_subscribers(monkeypatch):
    """The catalog announces new entries; the server's resources module turns that into
    resources/updated for the catalog's counts and categories."""
    from video_research.server import resources

    published: list[tuple[str, ...]] = []

    async def record(*uris: str) -> None:
        published.append(uris)

    monkeypatch.setattr(resources, "publish_updated", record)
    await feed.from_youtube([{"video_id": "abcdefghijk", "title": "A talk"}], source_tool="t")
    assert published == [(resources.CATALOG_STATS, resources.CATALOG_CATEGORIES)]


async def test_feeds_never_rewrite_curated_entries(catalog):
    """A feed (open to viewers, not audited) only inserts, or fills what is unknown."""
    before = await ok("catalog_get_video", {"video_id": "halloween"})
    await feed.from_youtube(
        [
            {
                "video_id": "halloween",
                "title": "Spam",
                "url": "https://www.youtube.com/watch?v=abcdefghijk",
                "duration_seconds": 1,
                "thumbnail_url": "https://i.example/h.jpg",
                "category_id": "10",
            },
            {"video_id": "unknown", "title": "Spam", "duration_seconds": 42},
        ],
        source_tool="video_metadata",
    )
    after = await ok("catalog_get_video", {"video_id": "halloween"})
    for field in ("title", "manifest_url", "categories", "duration_seconds", "source"):
        assert after[field] == before[field], field
    assert after["thumbnail_url"] == "https://i.example/h.jpg"  # was unknown: filled
    mystery = await ok("catalog_get_video", {"video_id": "unknown"})
    assert (mystery["title"], mystery["duration_seconds"]) == ("Mystery Reel", 42)


async def test_import_json_and_csv(tmp_path, catalog):
    rows = [
        {
            "video_id": "new-1",
            "title": "New One",
            "categories": "Drama; Indie",
            "duration": "1:30:00",
            "url": "https://m/1",
        },
        {"video_id": "halloween", "title": "Halloween (1978)", "manifest_url": "https://m/h"},
        {"video_id": "bad", "title": ""},
        "not an object",
    ]
    path = tmp_path / "videos.json"
    path.write_text(json.dumps({"videos": rows}))
    dry = await ok("catalog_import", {"file_path": str(path), "dry_run": True})
    assert dry["imported"] == 2 and dry["created"] == 0
    assert (await ok("catalog_get_video", {"video_id": "halloween"}))["title"] == "Halloween"
    result = await ok("catalog_import", {"file_path": str(path), "playlist_name": ""})
    assert (result["imported"], result["created"], result["updated"]) == (2, 1, 1)
    assert [f["row"] for f in result["failed"]] == [3, 4]
    video = await ok("catalog_get_video", {"video_id": "new-1"})
    assert video["duration_seconds"] == 5400 and video["categories"] == ["Drama", "Indie"]
    playlist = await ok("playlist_get", {"playlist_id": result["playlist_id"]})
    assert playlist["name"] == "videos" and playlist["item_count"] == 2

    csv_path = tmp_path / "more.csv"
    csv_path.write_text(
        "video_id,title,categories,duration_seconds,manifest_url\n"
        "c1,Comedy One,Comedy,100,https://m/c1\n"
        "c2,Comedy Two,Comedy|Classic,abc,https://m/c2\n"
    )
    result = await ok("catalog_import", {"file_path": str(csv_path), "categories": ["Imported"]})
    assert result["imported"] == 1 and result["failed"][0]["video_id"] == "c2"
    assert (await ok("catalog_get_video", {"video_id": "c1"}))["categories"] == [
        "Comedy",
        "Imported",
    ]


async def test_import_without_categories_or_url_keeps_them(tmp_path, catalog):
    """A CSV without a categories column (or a YouTube ID row without a URL) updates
    titles and durations but keeps the entries' categories and manifests."""
    await ok(
        "catalog_add",
        {
            "video_id": "dQw4w9WgXcQ",
            "title": "Song",
            "categories": ["Music"],
            "manifest_url": "https://media.example/song.json",
        },
    )
    path = tmp_path / "titles.csv"
    path.write_text(
        "video_id,title,duration_seconds,manifest_url\n"
        "elm,Elm Street,5461,https://media.example/elm.json\n"
        "dQw4w9WgXcQ,Song!,,\n"
    )
    result = await ok("catalog_import", {"file_path": str(path), "categories": ["Fixed"]})
    assert (result["imported"], result["created"]) == (2, 0)
    elm = await ok("catalog_get_video", {"video_id": "elm"})
    assert (elm["title"], elm["duration_seconds"]) == ("Elm Street", 5461)
    assert elm["categories"] == ["Fixed", "Horror"]
    song = await ok("catalog_get_video", {"video_id": "dQw4w9WgXcQ"})
    assert song["title"] == "Song!" and song["manifest_url"] == "https://media.example/song.json"
    assert song["categories"] == ["Fixed", "Music"]


async def test_import_reads_the_file_off_the_event_loop(tmp_path):
    """Other calls keep being served while a large file is read and validated."""
    import asyncio

    from video_research.handlers.catalog import catalog_import
    from video_research.handlers.context import CallContext

    rows = [
        {"video_id": f"v{i}", "title": f"Video {i}", "url": f"https://m/{i}"} for i in range(40_000)
    ]
    path = tmp_path / "large.json"
    path.write_text(json.dumps(rows))
    loop = asyncio.get_running_loop()
    gaps: list[float] = []
    running = True

    async def ticker() -> None:
        last = loop.time()
        while running:
            await asyncio.sleep(0.005)
            gaps.append(loop.time() - last)
            last = loop.time()

    ticks = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    started = loop.time()
    result = await catalog_import(
        {"file_path": str(path), "dry_run": True, "max_items": 200},
        CallContext(tool="catalog_import", caller=ADMIN),
    )
    elapsed = loop.time() - started
    running = False
    await ticks
    assert result["imported"] == 40_000
    assert max(gaps) < elapsed / 2, (max(gaps), elapsed)


async def test_import_refuses_paths_outside_roots(tmp_path):
    outside = await call("catalog_import", {"file_path": "/etc/passwd"})
    assert outside.error.category == "forbidden"
    neither = await call("catalog_import", {})
    assert neither.error.category == "invalid_input"
    (tmp_path / "x.txt").write_text("hi")
    wrong = await call("catalog_import", {"file_path": str(tmp_path / "x.txt")})
    assert wrong.error.category == "unsupported_format"


async def test_import_youtube_playlist(youtube_stub):
    from tests.stubs.youtube import PLAYLIST

    url = f"https://www.youtube.com/playlist?list={PLAYLIST}"
    result = await ok(
        "catalog_import", {"playlist_url": url, "max_items": 5, "playlist_name": "IO"}
    )
    assert result["imported"] + len(result["failed"]) == 5 and result["imported"] >= 1
    playlist = await ok("playlist_get", {"playlist_id": result["playlist_id"]})
    assert playlist["name"] == "IO" and playlist["total_duration_seconds"] > 0


async def test_playlist_lifecycle(catalog):
    made = await ok(
        "playlist_create",
        {"name": "Horror Night", "video_ids": ["halloween", "elm", "unknown"]},
        BLESSED,
    )
    assert made["item_count"] == 3
    dup = await call("playlist_create", {"name": "horror night", "video_ids": ["elm"]}, BLESSED)
    assert dup.error.category == "conflict"
    missing = await call("playlist_create", {"name": "X", "video_ids": ["ghost"]}, BLESSED)
    assert missing.error.category == "invalid_input" and "ghost" in missing.error.error
    too_long = await call("playlist_create", {"name": "x" * 101, "video_ids": ["elm"]}, BLESSED)
    assert too_long.error.category == "invalid_input"

    got = await ok("playlist_get", {"playlist_id": made["playlist_id"]}, VIEWER)
    assert [i["video_id"] for i in got["items"]] == ["halloween", "elm", "unknown"]
    assert got["total_duration_seconds"] == 5460 * 2 and got["unknown_duration_count"] == 1
    assert got["created_by"] == "dj"

    updated = await ok(
        "playlist_update",
        {
            "playlist_id": made["playlist_id"],
            "name": "Scary Night",
            "video_ids": ["elm", "halloween"],
        },
        BLESSED,
    )
    assert updated["changed"] == ["name", "video_ids"] and updated["item_count"] == 2
    listed = await ok("playlist_list", {}, VIEWER)
    assert [p["name"] for p in listed["playlists"]] == ["Scary Night"]
    unchanged = await ok("playlist_update", {"playlist_id": made["playlist_id"], "name": None})
    assert unchanged["changed"] == []

    deleted = await ok("playlist_delete", {"playlist_id": made["playlist_id"]})
    assert deleted["deleted"]
    gone = await call("playlist_get", {"playlist_id": made["playlist_id"]})
    assert gone.error.category == "not_found"


async def test_marathons(catalog):
    a = await ok("playlist_create", {"name": "A", "video_ids": ["f13-1", "f13-2"]})
    b = await ok("playlist_create", {"name": "B", "video_ids": ["airplane"]})
    start = (datetime.now(UTC) + timedelta(days=1)).replace(microsecond=0)
    made = await ok(
        "marathon_create",
        {
            "name": "Friday marathon",
            "starts_at": start.isoformat().replace("+00:00", "Z"),
            "playlist_ids": [a["playlist_id"], b["playlist_id"]],
        },
        BLESSED,
    )
    assert made["total_duration_seconds"] == 5700 + 5220 + 5280
    ends = datetime.fromisoformat(made["ends_at"].replace("Z", "+00:00"))
    assert ends - start == timedelta(seconds=5700 + 5220 + 5280)
    assert made["playlists"][1]["starts_at"] == made["playlists"][0]["ends_at"]
    assert made["status"] == "scheduled"

    past = await ok(
        "marathon_create",
        {"name": "Old", "starts_at": "2020-01-01T00:00:00Z", "playlist_ids": [b["playlist_id"]]},
    )
    assert past["status"] == "past"
    upcoming = await ok("marathon_list", {}, VIEWER)
    assert [m["name"] for m in upcoming["marathons"]] == ["Friday marathon"]
    everything = await ok("marathon_list", {"include_past": True}, VIEWER)
    assert [m["name"] for m in everything["marathons"]] == ["Old", "Friday marathon"]

    in_use = await call("playlist_delete", {"playlist_id": b["playlist_id"]})
    assert in_use.error.category == "conflict"
    bad_time = await call(
        "marathon_create",
        {"name": "X", "starts_at": "tomorrow-ish", "playlist_ids": [a["playlist_id"]]},
    )
    assert bad_time.error.category == "invalid_input"
    no_playlist = await call(
        "marathon_create",
        {"name": "X", "starts_at": "2030-01-01T00:00:00Z", "playlist_ids": ["pl_nope"]},
    )
    assert no_playlist.error.category == "not_found"

    assert (await ok("marathon_get", {"marathon_id": made["marathon_id"]}))[
        "name"
    ] == "Friday marathon"
    await ok("marathon_delete", {"marathon_id": past["marathon_id"]})
    assert (
        await call("marathon_get", {"marathon_id": past["marathon_id"]})
    ).error.category == "not_found"


async def test_youtube_tools_feed_the_catalog(youtube_stub):
    """video_metadata and video_playlist (real googleapiclient against the stub) add
    their videos to the catalog, keeping categories a user gave them."""
    from tests.stubs.youtube import SMALL_PLAYLIST

    await ok("catalog_add", {"video_id": "D-lhorsDlUQ", "title": "Old", "categories": ["Mine"]})
    metadata = await ok("video_metadata", {"url": "https://youtu.be/D-lhorsDlUQ"}, VIEWER)
    video = await ok("catalog_get_video", {"video_id": "D-lhorsDlUQ"}, VIEWER)
    # a viewer's lookup never rewrites the entry; it only fills the unknown duration
    assert video["title"] == "Old" and video["categories"] == ["Mine"]
    assert video["duration_seconds"] == metadata["duration_seconds"]

    playlist = await ok(
        "video_playlist", {"url": f"https://www.youtube.com/playlist?list={SMALL_PLAYLIST}"}
    )
    available = [i["video_id"] for i in playlist["items"] if i["available"]]
    found = await ok("catalog_search", {"limit": 100}, VIEWER)
    assert set(available) <= {v["video_id"] for v in found["items"]}


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("catalog_add", {"video_id": "x", "title": "X", "manifest_url": "https://m/x"}),
        ("catalog_search", {}),
        ("audit_log", {}),
    ],
)
@pytest.mark.parametrize("number", [10**19, 2**63])
async def test_out_of_range_numbers_are_invalid_input(tool, arguments, number):
    field = {"catalog_add": "duration_seconds", "catalog_search": "offset"}.get(tool, "before_id")
    outcome = await call(tool, {**arguments, field: number})
    assert outcome.error.category == "invalid_input", outcome.error
    assert f"$.{field}" in [e["path"] for e in outcome.error.details["errors"]]


def test_the_schema_bounds_durations_like_the_record():
    from video_research.catalog.videos import MAX_DURATION_SECONDS
    from video_research.support import contracts

    schema = contracts.tool_schema("catalog_add", "input")
    assert schema["properties"]["duration_seconds"]["maximum"] == MAX_DURATION_SECONDS


async def test_import_reports_out_of_range_durations_row_by_row(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(
        '[{"video_id": "inf", "title": "A", "url": "https://m/a", "duration_seconds": Infinity},'
        ' {"video_id": "nan", "title": "B", "url": "https://m/b", "duration_seconds": NaN},'
        ' {"video_id": "huge", "title": "C", "url": "https://m/c", "duration_seconds": 1'
        + "0"
        * 30
        + "},"
        ' {"video_id": "long", "title": "D", "url": "https://m/d", "duration": "'
        + "9"
        * 400
        + '"},'
        ' {"video_id": "fine", "title": "E", "url": "https://m/e", "duration_seconds": 60}]'
    )
    result = await ok("catalog_import", {"file_path": str(path)})
    assert result["video_ids"] == ["fine"]
    assert [f["video_id"] for f in result["failed"]] == ["inf", "nan", "huge", "long"]


@pytest.mark.parametrize(
    "starts_at", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:00Z", "1969-12-31T00:00:00Z"]
)
async def test_out_of_range_times_are_invalid_input(catalog, starts_at):
    playlist = await ok("playlist_create", {"name": "P", "video_ids": ["elm"]})
    made = await call(
        "marathon_create",
        {"name": "M", "starts_at": starts_at, "playlist_ids": [playlist["playlist_id"]]},
    )
    assert made.error.category == "invalid_input", made.error
    since = await call("audit_log", {"since": starts_at})
    assert since.error.category == "invalid_input", since.error


async def test_a_stored_marathon_at_the_end_of_time_does_not_break_the_list(catalog):
    """A marathon stored before start times were bounded still lists: its end is held
    at the last representable moment instead of overflowing."""
    playlist = await ok("playlist_create", {"name": "P", "video_ids": ["elm", "halloween"]})
    made = await ok(
        "marathon_create",
        {
            "name": "Late",
            "starts_at": "2100-01-01T00:00:00Z",
            "playlist_ids": [playlist["playlist_id"]],
        },
    )
    await get_db().write(
        lambda conn: conn.execute(
            "UPDATE marathons SET starts_at = '9999-12-31T23:59:00Z' WHERE marathon_id = ?",
            (made["marathon_id"],),
        )
    )
    listed = (await ok("marathon_list", {}, VIEWER))["marathons"]
    assert [(m["name"], m["ends_at"]) for m in listed] == [("Late", "9999-12-31T23:59:59Z")]
    assert listed[0]["total_duration_seconds"] == 5460 * 2
