"""Re-indexing a transcript file keeps what an earlier call said of it (its `videos`
entry: ID, title, dates; the call's channel and language) when the new call leaves it
out; what a call gives replaces it."""

from __future__ import annotations

import shutil

from tests.transcripts.test_transcript_tools import OWN, call


async def _video(video_id: str) -> dict:
    return (await call("transcript_get", {"video_id": video_id, "max_segments": 1}))["video"]


async def test_metadata_left_out_is_kept_when_the_file_changes(tmp_path):
    folder = tmp_path / "talks"
    folder.mkdir()
    srt = folder / "rust_borrowing.srt"
    shutil.copy(OWN / "rust_borrowing.srt", srt)
    said = {
        "path": str(folder),
        "channel_title": "My channel",
        "videos": {
            "rust_borrowing.srt": {
                "video_id": "rUsTbOrRoW1",
                "title": "Rust ownership and borrowing",
                "published_at": "2024-03-01",
            }
        },
    }
    first = await call("index_transcript_files", said)
    assert first["batch"]["indexed_count"] == 1

    # the same file, nothing said: nothing to do, and nothing lost
    quiet = await call("index_transcript_files", {"path": str(folder)})
    assert quiet["batch"]["skipped"] == ["rUsTbOrRoW1"]

    srt.write_text(srt.read_text().replace("borrow", "lend"))  # new words: read again
    again = await call("index_transcript_files", {"path": str(folder)})
    assert [v["video_id"] for v in again["batch"]["indexed"]] == ["rUsTbOrRoW1"]
    video = await _video("rUsTbOrRoW1")
    assert video["video_title"] == "Rust ownership and borrowing"
    assert video["channel_title"] == "My channel"
    assert video["published_at"].startswith("2024-03-01")

    # a field given replaces the stored one; the others stay
    renamed = await call(
        "index_transcript_files",
        {"path": str(folder), "videos": {"rust_borrowing.srt": {"title": "Borrowing, again"}}},
    )
    assert [v["video_title"] for v in renamed["batch"]["indexed"]] == ["Borrowing, again"]
    video = await _video("rUsTbOrRoW1")
    assert video["channel_title"] == "My channel"
    assert video["published_at"].startswith("2024-03-01")
    listed = await call("get_indexed_videos", {})
    assert [v["video_id"] for v in listed["videos"]] == ["rUsTbOrRoW1"], "no second copy"
