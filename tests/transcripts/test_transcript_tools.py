"""The transcript tools through the dispatch table (contracts checked on every call):
indexing files and channels, search with filters and merged moments, paging, deleting,
and the failures a user meets. YouTube is the local Data API stub plus the local
youtube.com stub youtube-transcript-api talks to; the store is a real SQLite file."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.calls import call_tool
from tests.helpers import DATA
from tests.stubs.gemini import error
from tests.stubs.youtube import CHANNEL
from tests.stubs.youtube_transcripts import StubVideo
from video_research.handlers.context import Caller

OWN = DATA / "transcripts"
OWNER = Caller(username="tester", role="admin", verified=True)


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        self.events.append((done, total, message))


async def call(
    tool: str, arguments: dict, progress: Recorder | None = None, caller=OWNER, session=None
):
    """The result, or the ToolError as a dict: these tests look at both the same way."""
    outcome = await call_tool(tool, arguments, caller=caller, progress=progress, session=session)
    if outcome.error is not None:
        return outcome.error.to_json_dict()
    return outcome.result


def failures(answer: dict) -> list[dict]:
    """An indexing call's failed items: from its batch, or, when nothing succeeded, from
    the error that lists them (video_research/tools/batches.py)."""
    if "batch" in answer:
        return answer["batch"]["failed"]
    return answer["details"]["failed"]


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
    assert [e[0] for e in progress.events] == [0, 1, 2, 3], "0/N before the first file"

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
    tides = json.loads((OWN / "tides.json").read_text())
    (folder / "tides.json").write_text(json.dumps({**tides, "channel_id": "UCtides"}))
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
                    "published_at": "2024-03-01T15:30:00Z",
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
    tides_video = await call("transcript_get", {"video_id": "tIdEs_42xyz", "max_segments": 1})
    assert tides_video["video"]["channel_id"] == "UCtides"  # the file's own, before channel_id
    query = {"query": "borrowing", "video_ids": ["rUsTbOrRoW1"], "auto_index": False}
    that_day = await call(
        "semantic_search_transcripts", {**query, "published_before": "2024-03-01"}
    )
    assert [r["video_id"] for r in that_day["results"]][:1] == ["rUsTbOrRoW1"]
    day_before = await call(
        "semantic_search_transcripts", {**query, "published_before": "2024-02-29"}
    )
    assert day_before["results"] == []


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
    # min_score filters on the calibrated relevance (the fused score is rescaled per query)
    assert strict["results"] and all(r["relevance"] >= 0.99 for r in strict["results"])
    dated = await call(
        "semantic_search_transcripts", {"query": query, "published_after": "not a date"}
    )
    assert dated["category"] == "invalid_input"
    # no Data API (no key), but the channel is indexed: its videos are still paged
    paged = await call("get_all_channel_transcripts", {"channel_id": "UCbake"})
    assert paged["total_videos"] == 3 and paged["fetch"]["indexed_count"] == 0
    assert "UCbake" in paged["fetch"]["notes"][0]
    unknown = await call("get_all_channel_transcripts", {"channel_id": "UCnothing"})
    assert "category" in unknown and "videos" not in unknown


async def test_paging_cursors_and_delete(captions):
    indexed = await call("index_transcript_files", {"path": str(captions)})
    chunks = {v["video_id"]: v["chunk_count"] for v in indexed["batch"]["indexed"]}
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

    parts = (await call("video_chapters", {"video_id": "rUsTbOrRoW1"}))["chapters"]
    deleted = await call(
        "delete_indexed_video", {"video_id": "https://www.youtube.com/watch?v=rUsTbOrRoW1"}
    )
    assert deleted == {
        "video_id": "rUsTbOrRoW1",
        "deleted": True,
        # the moments and one searchable chunk per chapter title
        "chunks_deleted": chunks["rUsTbOrRoW1"] + len(parts),
    }
    assert (await call("delete_indexed_video", {"video_id": "rUsTbOrRoW1"}))["deleted"] is False
    gone = await call(
        "semantic_search_transcripts", {"query": "borrow checker", "auto_index": False}
    )
    assert "rUsTbOrRoW1" not in {r["video_id"] for r in gone["results"]}
    missing = await call("transcript_get", {"video_id": "rUsTbOrRoW1", "auto_index": False})
    assert missing["category"] == "not_found"

    # a delete cut off between record and chunks leaves a video that reads as not indexed
    from video_research.knowledge.store import get_store
    from video_research.support.errors import ErrorCategory, ToolFailure

    async def cut_off(*args, **kwargs):
        raise ToolFailure(ErrorCategory.TIMEOUT, "the store stayed locked")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(await get_store(), "delete_where", cut_off)
        cut = await call("delete_indexed_video", {"video_id": "tIdEs_42xyz"})
    assert cut["category"] == "timeout"
    assert "tIdEs_42xyz" not in {
        v["video_id"] for v in (await call("get_indexed_videos", {}))["videos"]
    }
    redone = await call("index_transcript_files", {"path": str(captions)})
    assert "tIdEs_42xyz" in {v["video_id"] for v in redone["batch"]["indexed"]}


async def test_delete_needs_the_blessed_role(captions):
    viewer = Caller(username="guest", role="viewer", verified=True)
    refused = await call("delete_indexed_video", {"video_id": "rUsTbOrRoW1"}, caller=viewer)
    assert refused["category"] == "forbidden"


async def test_files_outside_the_roots_are_refused(tmp_path):
    refused = await call("index_transcript_files", {"path": "/etc"})
    assert refused["category"] == "forbidden"
    outside = tmp_path / "link.vtt"
    outside.symlink_to(OWN / "vtt" / "rUsTbOrRoW1.vtt")
    linked = await call("index_transcript_files", {"path": str(tmp_path), "glob_pattern": "*.vtt"})
    assert linked["category"] == "forbidden", "its only file was refused"
    assert failures(linked)[0]["reason"] == "forbidden"
    escape = await call("index_transcript_files", {"path": str(tmp_path), "glob_pattern": "../*"})
    assert escape["category"] == "invalid_input"
    garbled = await call("index_transcript_files", {"path": str(tmp_path), "glob_pattern": "x**/*"})
    assert garbled["category"] == "invalid_input" and "**" in garbled["error"]
    empty = await call("index_transcript_files", {"path": str(tmp_path), "glob_pattern": "*.srt"})
    assert empty["category"] == "not_found"
    nothing = await call("index_transcript_files", {"path": str(tmp_path / "nope")})
    assert nothing["category"] == "not_found"


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
    from video_research.clients import youtube

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
    from video_research.clients import youtube

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
    from video_research.clients import youtube

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


async def test_files_of_one_video_are_duplicates_not_overwrites(tmp_path):
    """yt-dlp's .en and .en-orig tracks of one video, and two lectures whose names become
    one ID: the first file is indexed, the later one reported; a run later, nothing is redone."""
    folder = tmp_path / "dups"
    (folder / "course1").mkdir(parents=True)
    (folder / "course2").mkdir()
    tides = OWN / "vtt" / "How tides make electricity [tIdEs_42xyz].en.vtt"
    shutil.copy(tides, folder / tides.name)
    shutil.copy(tides, folder / tides.name.replace(".en.", ".en-orig."))
    shutil.copy(OWN / "rust_borrowing.srt", folder / "course1" / "lecture 01.srt")
    shutil.copy(OWN / "rust_borrowing.srt", folder / "course2" / "lecture_01.srt")
    args = {"path": str(folder), "glob_pattern": "**/*"}
    first = (await call("index_transcript_files", args))["batch"]
    assert sorted(v["video_id"] for v in first["indexed"]) == ["lecture_01", "tIdEs_42xyz"]
    duplicates = {f["video_id"]: f for f in first["failed"]}
    assert set(duplicates) == {"lecture_01", "tIdEs_42xyz"}
    assert all(f["reason"] == "duplicate" for f in first["failed"])
    assert duplicates["lecture_01"]["file"].endswith("course2/lecture_01.srt")
    assert '"course2/lecture_01.srt"' in duplicates["lecture_01"]["hint"]
    kept = await call("transcript_get", {"video_id": "lecture_01", "max_segments": 1})
    assert kept["video"]["source_path"].endswith("course1/lecture 01.srt")

    again = (await call("index_transcript_files", args))["batch"]
    assert (again["indexed_count"], again["skipped_count"], again["failed_count"]) == (0, 2, 2)

    keyed = await call(
        "index_transcript_files",
        {**args, "videos": {"course2/lecture_01.srt": {"video_id": "lecture_01_course2"}}},
    )
    assert [v["video_id"] for v in keyed["batch"]["indexed"]] == ["lecture_01_course2"]
    assert keyed["batch"]["failed_count"] == 1


class RootsSession:
    """A client session that shares one root and counts how often it is asked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.asked = 0

    def check_client_capability(self, capability) -> bool:
        return True

    async def list_roots(self):
        from types import SimpleNamespace

        self.asked += 1
        return SimpleNamespace(roots=[SimpleNamespace(uri=self.root.as_uri())])


async def test_unchanged_means_same_bytes_and_same_metadata(captions, tmp_path):
    """Files are compared by content and by the metadata given for them, not by mtime, and
    by their resolved path (a link is the file it points at); the client is asked for its
    roots once per call."""
    session = RootsSession(tmp_path)
    first = await call("index_transcript_files", {"path": str(captions)}, session=session)
    assert first["batch"]["indexed_count"] == 3 and session.asked == 1

    rust = captions / "rUsTbOrRoW1.vtt"
    edited = tmp_path / "edited.vtt"
    edited.write_text(rust.read_text().replace("borrow checker", "lifetime checker"))
    os.utime(edited, ns=(rust.stat().st_atime_ns, rust.stat().st_mtime_ns - 10**9))
    shutil.copy2(edited, rust)  # cp -p: new words, an older mtime
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "rUsTbOrRoW1.vtt").symlink_to(rust)
    copied = await call("index_transcript_files", {"path": str(captions)})
    assert [v["video_id"] for v in copied["batch"]["indexed"]] == ["rUsTbOrRoW1"]
    via_link = await call("index_transcript_files", {"path": str(linked)})
    assert via_link["batch"]["skipped"] == ["rUsTbOrRoW1"]

    described = await call(
        "index_transcript_files",
        {"path": str(captions), "videos": {"rUsTbOrRoW1.vtt": {"title": "Borrowing"}}},
    )
    assert [v["video_title"] for v in described["batch"]["indexed"]] == ["Borrowing"]
    assert described["batch"]["skipped_count"] == 2


async def test_a_mapped_youtube_id_gets_its_metadata(youtube_stub, tmp_path):
    """videos[...].video_id is applied before the Data API lookup, and a given title does
    not skip it: the channel, date and chapters still come from the API."""
    from video_research.clients import youtube

    listed = await youtube.list_channel_videos(CHANNEL, 2)
    folder = tmp_path / "lectures"
    folder.mkdir()
    shutil.copy(OWN / "rust_borrowing.srt", folder / "lecture1.srt")
    shutil.copy(OWN / "rust_borrowing.srt", folder / "lecture2.srt")
    ids = [v["video_id"] for v in listed]
    await call(
        "index_transcript_files",
        {
            "path": str(folder),
            "videos": {
                "lecture1.srt": {"video_id": ids[0]},
                "lecture2": {"video_id": ids[1], "title": "My own title"},
            },
        },
    )
    one = (await call("transcript_get", {"video_id": ids[0], "max_segments": 1}))["video"]
    assert (one["video_title"], one["channel_id"]) == (listed[0]["title"], CHANNEL)
    two = (await call("transcript_get", {"video_id": ids[1], "max_segments": 1}))["video"]
    assert (two["video_title"], two["channel_id"]) == ("My own title", CHANNEL)
    assert two["published_at"]


async def test_a_file_that_cannot_be_stored_fails_alone_and_a_refusing_store_stops(
    captions, gemini_stub, configure
):
    """An embedding failure or a bad published_at fails that file only (keeping the
    category's retryable); a store that refuses every write (embedding model changed)
    ends the call with its config_error."""
    configure(
        KNOWLEDGE_EMBEDDING_MODEL=None,
        KNOWLEDGE_EMBEDDING_PROVIDER="gemini",
        GEMINI_RETRY_MAX_ATTEMPTS="1",
    )
    gemini_stub.enqueue("batchEmbedContents", error("error_503_unavailable_overloaded.json"))
    result = await call(
        "index_transcript_files",
        {"path": str(captions), "videos": {"rUsTbOrRoW1.vtt": {"published_at": "May 2024"}}},
    )
    batch = result["batch"]
    assert [v["video_id"] for v in batch["indexed"]] == ["tIdEs_42xyz"]
    failed = {f["video_id"]: f for f in batch["failed"]}
    assert failed["bAk3rY_0001"]["reason"] == "error" and failed["bAk3rY_0001"]["retryable"]
    dated = failed["rUsTbOrRoW1"]
    assert dated["reason"] == "error" and "May 2024" in dated["error"]
    assert dated["retryable"] is False

    configure(KNOWLEDGE_EMBEDDING_DIMENSIONS="1536")
    embeds = len(gemini_stub.calls("batchEmbedContents"))
    refused = await call("index_transcript_files", {"path": str(captions), "force_reindex": True})
    assert refused["category"] == "config_error" and "knowledge_reembed" in refused["hint"]
    assert len(gemini_stub.calls("batchEmbedContents")) == embeds


async def test_a_video_that_cannot_be_stored_fails_alone_and_a_refusing_store_stops(
    youtube_stub, transcript_stub, gemini_stub, configure
):
    from video_research.clients import youtube

    configure(
        KNOWLEDGE_EMBEDDING_MODEL=None,
        KNOWLEDGE_EMBEDDING_PROVIDER="gemini",
        GEMINI_RETRY_MAX_ATTEMPTS="1",
    )
    ids = [v["video_id"] for v in await youtube.list_channel_videos(CHANNEL, 5)]
    for n, video_id in enumerate(ids + ["zzzzzzzzzzz"]):
        transcript_stub.videos[video_id] = StubVideo(
            {"en": ([(i * 5.0, 4.5, f"episode {n} part {i}") for i in range(10)], False)}
        )
    gemini_stub.enqueue("batchEmbedContents", error("error_503_unavailable_overloaded.json"))
    result = await call("index_channel_transcripts", {"channel_id": CHANNEL, "max_videos": 5})
    batch = result["batch"]
    assert batch["indexed_count"] == 4 and batch["failed_count"] == 1
    assert batch["failed"][0]["reason"] == "error" and batch["failed"][0]["retryable"]
    stored = batch["indexed"][0]["video_id"]

    configure(KNOWLEDGE_EMBEDDING_DIMENSIONS="1536")
    transcript_stub.requests.clear()
    refused = await call(
        "index_channel_transcripts", {"channel_id": CHANNEL, "max_videos": 5, "force_reindex": True}
    )
    assert refused["category"] == "config_error"
    await asyncio.sleep(0.5)  # nothing goes on in the background either
    assert len(transcript_stub.calls("watch")) <= 2  # TRANSCRIPT_FETCH_CONCURRENCY

    searched = await call(  # auto-index refused: noted, and the keyword search still answers
        "semantic_search_transcripts",
        {"query": "episode", "video_ids": [stored, "zzzzzzzzzzz"], "alpha": 0, "pinpoint": False},
    )
    assert searched["results"] and "not indexed" in searched["indexing"]["notes"][0]


async def test_a_low_content_transcript_is_marked_and_not_put_first(captions):
    """A 12-minute chunk of "[MUSIC] you you you" (music videos' auto captions) is marked
    `low_content`; a question that merely holds "you" does not find it first (it holds
    none of the question's content words), and the word alone is weak there."""
    cues = ["[MUSIC]"] + ["you"] * 10
    lines = []
    for n, text in enumerate(cues):
        start, end = n * 65, n * 65 + 60
        stamp = lambda s: f"00:{s // 60:02d}:{s % 60:02d},000"  # noqa: E731
        lines.append(f"{n + 1}\n{stamp(start)} --> {stamp(end)}\n{text}\n")
    (captions / "mUs1cV1d3o0.srt").write_text("\n".join(lines))
    await call("index_transcript_files", {"path": str(captions), "glob_pattern": "*"})
    for query in ("you", "what do you need to start"):
        result = await call("semantic_search_transcripts", {"query": query, "k": 5})
        ranked = [r["video_id"] for r in result["results"]]
        assert ranked, query
        if query != "you":
            assert ranked[0] != "mUs1cV1d3o0", (query, ranked)
        for moment in result["results"]:
            said = moment["evidence"] == "speech"  # a chapter title never is low content
            assert moment["low_content"] == (said and moment["video_id"] == "mUs1cV1d3o0")
            assert set(moment["scores"]) == {"fused", "relevance", "cosine", "keyword", "share"}
