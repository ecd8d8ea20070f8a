"""The transcript tools through the dispatch table (contracts checked on every call):
indexing files and channels, search with filters and merged moments, paging, deleting,
and the failures a user meets. YouTube is the local Data API stub plus the local
youtube.com stub youtube-transcript-api talks to; the store is a real SQLite file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import DATA
from tests.stubs.youtube import CHANNEL
from tests.stubs.youtube_transcripts import StubVideo
from video_research import dispatch
from video_research.context import CallContext, Caller

OWN = DATA / "transcripts"
OWNER = Caller(username="tester", role="admin", verified=True)


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        self.events.append((done, total, message))


async def call(tool: str, arguments: dict, progress: Recorder | None = None, caller=OWNER):
    ctx = CallContext(tool=tool, caller=caller)
    if progress is not None:
        ctx.progress_fn = progress
    outcome = await dispatch.call(dispatch.TOOLS[tool], arguments, ctx)
    if outcome.error is not None:
        return outcome.error.to_json_dict()
    return outcome.result


@pytest.fixture
def captions(tmp_path) -> Path:
    target = tmp_path / "captions"
    shutil.copytree(OWN / "vtt", target)
    return target


async def test_index_a_directory_of_vtt_files_then_find_the_moment(captions):
    progress = Recorder()
    result = await call("index_transcript_files", {"path": str(captions)}, progress)
    batch = result["batch"]
    assert result["files_found"] == 3
    assert batch["indexed_count"] == 3 and batch["failed"] == []
    by_id = {v["video_id"]: v for v in batch["indexed"]}
    assert by_id["bAk3rY_0001"]["video_title"] == "Baking a country sourdough loaf"
    assert by_id["bAk3rY_0001"]["language"] == "en"
    assert [e[0] for e in progress.events] == [1, 2, 3]

    found = await call(
        "semantic_search_transcripts", {"query": "why you should wait before slicing warm bread"}
    )
    top = found["results"][0]
    assert top["video_id"] == "bAk3rY_0001"
    assert abs(top["match_time"] - 200) <= 60  # "The hardest part is waiting..." at 3:20
    assert (
        top["timestamp_url"]
        == f"https://www.youtube.com/watch?v=bAk3rY_0001&t={int(top['match_time'])}s"
    )
    assert top["start_time"] <= top["match_time"] <= top["end_time"]
    assert "hardest part is waiting" in top["text"]

    rust = await call(
        "semantic_search_transcripts",
        {"query": "compiler tracks how long a reference stays valid", "k": 1},
    )
    assert rust["results"][0]["video_id"] == "rUsTbOrRoW1"
    assert abs(rust["results"][0]["match_time"] - 132) <= 60  # lifetimes at 2:12


async def test_reindexing_unchanged_files_skips_them_and_changed_ones_are_redone(captions):
    await call("index_transcript_files", {"path": str(captions)})
    again = await call("index_transcript_files", {"path": str(captions)})
    assert again["batch"]["skipped_count"] == 3 and again["batch"]["indexed_count"] == 0
    tides = next(captions.glob("How tides*"))
    tides.write_text(tides.read_text().replace("Rance", "Sihwa"))
    later = os.stat(tides).st_mtime + 5
    os.utime(tides, (later, later))
    third = await call("index_transcript_files", {"path": str(captions)})
    assert [v["video_id"] for v in third["batch"]["indexed"]] == ["tIdEs_42xyz"]
    hits = await call("semantic_search_transcripts", {"query": "Sihwa", "alpha": 0, "k": 1})
    assert hits["results"][0]["video_id"] == "tIdEs_42xyz"
    forced = await call("index_transcript_files", {"path": str(captions), "force_reindex": True})
    assert forced["batch"]["indexed_count"] == 3
    listed = await call("get_indexed_videos", {})
    assert listed["total"] == 3  # re-indexing replaced, never duplicated
    assert sum(v["chunk_count"] for v in listed["videos"]) == forced["batch"]["chunk_count"]


async def test_file_metadata_mapping_and_mixed_formats(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(OWN / "rust_borrowing.srt", folder)
    shutil.copy(OWN / "tides.json", folder)
    (folder / "broken.srt").write_text("no timings here")
    result = await call(
        "index_transcript_files",
        {
            "path": str(folder),
            "channel_id": "UCownchannel",
            "channel_title": "My channel",
            "videos": {
                "rust_borrowing.srt": {
                    "video_id": "rUsTbOrRoW1",
                    "title": "Rust ownership and borrowing",
                    "published_at": "2024-03-01",
                    "description": "0:00 Ownership\n0:48 Borrowing\n2:12 Lifetimes",
                }
            },
        },
    )
    batch = result["batch"]
    assert batch["indexed_count"] == 2
    assert (
        batch["failed"][0]["reason"] == "unreadable" and "broken.srt" in batch["failed"][0]["file"]
    )
    rust = await call("transcript_get", {"video_id": "rUsTbOrRoW1", "max_segments": 1})
    assert rust["video"]["video_title"] == "Rust ownership and borrowing"
    assert rust["video"]["channel_id"] == "UCownchannel"
    assert [c["title"] for c in rust["video"]["chapters"]] == [
        "Ownership",
        "Borrowing",
        "Lifetimes",
    ]
    hit = await call(
        "semantic_search_transcripts",
        {
            "query": "lifetime annotations with an apostrophe",
            "channel_ids": ["UCownchannel"],
            "k": 1,
        },
    )
    assert hit["results"][0]["chapter"] == "Lifetimes"
    assert hit["results"][0]["published_at"].startswith("2024-03-01")


async def test_search_filters(captions):
    await call("index_transcript_files", {"path": str(captions), "channel_id": "UCbake"})
    query = "tides and the moon"
    only = await call("semantic_search_transcripts", {"query": query, "video_ids": ["rUsTbOrRoW1"]})
    assert {r["video_id"] for r in only["results"]} == {"rUsTbOrRoW1"}
    by_url = await call(
        "semantic_search_transcripts",
        {"query": query, "video_ids": ["https://youtu.be/tIdEs_42xyz"], "auto_index": False},
    )
    assert {r["video_id"] for r in by_url["results"]} == {"tIdEs_42xyz"}
    late = await call("semantic_search_transcripts", {"query": query, "start_time": 100})
    assert late["results"] and all(r["end_time"] >= 100 for r in late["results"])
    early = await call("semantic_search_transcripts", {"query": query, "end_time": 30})
    assert all(r["start_time"] <= 30 for r in early["results"])
    none = await call("semantic_search_transcripts", {"query": query, "language": "de"})
    assert none["results"] == []
    other = await call(
        "semantic_search_transcripts",
        {"query": query, "channel_ids": ["UCnothing"], "auto_index": False},
    )
    assert other["results"] == []
    unlisted = await call(
        "semantic_search_transcripts", {"query": query, "channel_ids": ["UCnothing"]}
    )  # no YouTube key to list the channel: noted, and the search still answers
    assert unlisted["results"] == [] and "UCnothing" in unlisted["indexing"]["notes"][0]
    strict = await call("semantic_search_transcripts", {"query": query, "min_score": 0.99})
    assert all(r["score"] >= 0.99 for r in strict["results"])
    dated = await call(
        "semantic_search_transcripts", {"query": query, "published_after": "not a date"}
    )
    assert dated["category"] == "invalid_input"


async def test_paging_cursors_and_delete(captions):
    await call("index_transcript_files", {"path": str(captions)})
    first = await call("get_indexed_videos", {"limit": 2})
    second = await call("get_indexed_videos", {"limit": 2, "cursor": first["next_cursor"]})
    assert first["total"] == 3 and len(first["videos"]) == 2 and second["next_cursor"] is None
    assert {v["video_id"] for v in first["videos"] + second["videos"]} == {
        "bAk3rY_0001",
        "rUsTbOrRoW1",
        "tIdEs_42xyz",
    }
    wrong = await call("get_indexed_videos", {"limit": 3, "cursor": first["next_cursor"]})
    assert wrong["category"] == "invalid_input" and "different query" in wrong["error"]
    garbled = await call("transcript_get", {"video_id": "rUsTbOrRoW1", "cursor": "%%%"})
    assert garbled["category"] == "invalid_input"

    pages, cursor = [], None
    while True:
        page = await call(
            "transcript_get",
            {
                "video_id": "rUsTbOrRoW1",
                "max_segments": 7,
                **({"cursor": cursor} if cursor else {}),
            },
        )
        pages.append(page["segments"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    segments = [s for page in pages for s in page]
    assert [s["index"] for s in segments] == list(range(20)) and len(pages) == 3
    assert segments[5]["timestamp_url"].endswith("&t=60s")
    jump = await call(
        "transcript_get", {"video_id": "rUsTbOrRoW1", "start_time": 61, "max_segments": 1}
    )
    assert jump["segments"][0]["start"] == 60.0

    deleted = await call(
        "delete_indexed_video", {"video_id": "https://www.youtube.com/watch?v=rUsTbOrRoW1"}
    )
    assert deleted == {"video_id": "rUsTbOrRoW1", "deleted": True, "chunks_deleted": 2}
    assert (await call("delete_indexed_video", {"video_id": "rUsTbOrRoW1"}))["deleted"] is False
    gone = await call(
        "semantic_search_transcripts", {"query": "borrow checker", "auto_index": False}
    )
    assert "rUsTbOrRoW1" not in {r["video_id"] for r in gone["results"]}
    missing = await call("transcript_get", {"video_id": "rUsTbOrRoW1", "auto_index": False})
    assert missing["category"] == "not_found"


async def test_delete_needs_the_blessed_role(captions):
    viewer = Caller(username="guest", role="viewer", verified=True)
    refused = await call("delete_indexed_video", {"video_id": "rUsTbOrRoW1"}, caller=viewer)
    assert refused["category"] == "forbidden"


async def test_files_outside_the_roots_are_refused(tmp_path):
    refused = await call("index_transcript_files", {"path": "/etc"})
    assert refused["category"] == "forbidden_path"
    outside = tmp_path / "link.vtt"
    outside.symlink_to(OWN / "vtt" / "rUsTbOrRoW1.vtt")
    linked = await call("index_transcript_files", {"path": str(tmp_path), "glob_pattern": "*.vtt"})
    assert linked["batch"]["failed"][0]["reason"] == "forbidden"
    escape = await call("index_transcript_files", {"path": str(tmp_path), "glob_pattern": "../*"})
    assert escape["category"] == "invalid_input"
    empty = await call("index_transcript_files", {"path": str(tmp_path), "glob_pattern": "*.srt"})
    assert empty["category"] == "FILE_NOT_FOUND"
    nothing = await call("index_transcript_files", {"path": str(tmp_path / "nope")})
    assert nothing["category"] == "FILE_NOT_FOUND"


def _stub_channel(transcript_stub, video_ids):
    """Transcripts for the channel's videos: one blocked, one with subtitles disabled."""
    for n, video_id in enumerate(video_ids):
        transcript_stub.videos[video_id] = StubVideo(
            {
                "en": (
                    [(i * 5.0, 4.5, f"episode {n} part {i} about topic {n}") for i in range(30)],
                    n % 2 == 1,
                )
            }
        )
    transcript_stub.videos[video_ids[1]] = StubVideo(failure="bot")
    transcript_stub.videos[video_ids[2]] = StubVideo(failure="disabled")


async def test_index_a_channel_incrementally_with_progress_and_failures(
    youtube_stub, transcript_stub
):
    from video_research import youtube

    videos = await youtube.list_channel_videos(CHANNEL, 5)
    ids = [v["video_id"] for v in videos]
    _stub_channel(transcript_stub, ids)
    progress = Recorder()
    result = await call(
        "index_channel_transcripts", {"channel_id": CHANNEL, "max_videos": 5}, progress
    )
    batch = result["batch"]
    assert result["videos_found"] == 5
    assert batch["indexed_count"] == 3 and batch["failed_count"] == 2
    reasons = {f["video_id"]: f["reason"] for f in batch["failed"]}
    assert reasons == {ids[1]: "blocked", ids[2]: "disabled"}
    assert (
        "TRANSCRIPT_PROXY_URL"
        in next(f for f in batch["failed"] if f["reason"] == "blocked")["hint"]
    )
    assert progress.events[-1][:2] == (5, 5)
    assert batch["indexed"][0]["video_title"]
    listed = await call("get_indexed_videos", {"channel_id": CHANNEL})
    assert listed["total"] == 3
    assert all(v["video_title"] and v["published_at"] for v in listed["videos"])

    transcript_stub.reset()
    _stub_channel(transcript_stub, ids)
    again = await call("index_channel_transcripts", {"channel_id": CHANNEL, "max_videos": 5})
    assert again["batch"]["skipped_count"] == 3
    assert {r.query.get("v") for r in transcript_stub.calls("watch")} == {ids[1], ids[2]}

    hit = await call(
        "semantic_search_transcripts",
        {"query": "episode 3 part 12", "channel_ids": [CHANNEL], "alpha": 0},
    )
    top = hit["results"][0]
    assert top["video_id"] == ids[3] and top["channel_id"] == CHANNEL
    assert abs(top["match_time"] - 60) <= 60


async def test_all_channel_transcripts_are_paged_with_previews(youtube_stub, transcript_stub):
    from video_research import youtube

    ids = [v["video_id"] for v in await youtube.list_channel_videos(CHANNEL, 6)]
    _stub_channel(transcript_stub, ids)
    first = await call(
        "get_all_channel_transcripts",
        {"channel_id": CHANNEL, "max_videos": 6, "page_size": 2, "preview_chars": 40},
    )
    assert first["fetch"]["indexed_count"] == 4 and first["total_videos"] == 4
    assert len(first["videos"]) == 2 and all(len(v["preview"]) <= 42 for v in first["videos"])
    assert first["videos"][0]["preview"].startswith("episode")
    seen = [v["video_id"] for v in first["videos"]]
    cursor = first["next_cursor"]
    while cursor:
        page = await call(
            "get_all_channel_transcripts",
            {"channel_id": CHANNEL, "page_size": 2, "preview_chars": 40, "cursor": cursor},
        )
        assert page["fetch"] is None
        seen += [v["video_id"] for v in page["videos"]]
        cursor = page["next_cursor"]
    assert sorted(seen) == sorted(set(ids) - {ids[1], ids[2]})


async def test_search_auto_indexes_listed_videos(youtube_stub, transcript_stub):
    from video_research import youtube

    ids = [v["video_id"] for v in await youtube.list_channel_videos(CHANNEL, 4)]
    _stub_channel(transcript_stub, ids)
    result = await call(
        "semantic_search_transcripts",
        {"query": "episode 0 part 20", "video_ids": [ids[0], ids[1]], "alpha": 0},
    )
    assert [v["video_id"] for v in result["indexing"]["indexed"]] == [ids[0]]
    assert result["indexing"]["failed"][0]["reason"] == "blocked"
    assert result["results"][0]["video_id"] == ids[0]
    again = await call("semantic_search_transcripts", {"query": "episode", "video_ids": [ids[0]]})
    assert again["indexing"]["indexed_count"] == 0


async def test_transcript_get_fetches_a_missing_youtube_video(transcript_stub):
    transcript_stub.videos["zzzzzzzzzzz"] = StubVideo({"en": ([(1.0, 2.0, "first words")], True)})
    result = await call("transcript_get", {"video_id": "zzzzzzzzzzz"})
    assert result["segments"][0]["text"] == "first words"
    assert result["video"]["is_generated"] is True and result["video"]["video_title"] == ""
    transcript_stub.videos["yyyyyyyyyyy"] = StubVideo(failure="bot")
    blocked = await call("transcript_get", {"video_id": "yyyyyyyyyyy"})
    assert blocked["category"] == "rate_limited" and "proxy" in blocked["hint"].lower()
