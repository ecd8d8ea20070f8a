"""Two kinds of evidence in the moment index: what was said (speech, every transcript) and
what was shown (screen, on-screen text). One video holds both; each is replaced on its own;
a search says which each moment is and can be narrowed to either."""

from __future__ import annotations

import json
from pathlib import Path

from tests.calls import call_ok
from video_research.knowledge.citations import cite
from video_research.transcripts.indexer import VideoInfo
from video_research.transcripts.screen import group_spans, index_screen_text

TRUTH = json.loads(
    (Path(__file__).parent.parent / "fixtures" / "media" / "lecture.json").read_text()
)


def _vtt(path: Path) -> None:
    def stamp(seconds: float) -> str:
        return f"00:{int(seconds) // 60:02d}:{seconds % 60:06.3f}"

    cues = [f"{stamp(s['start'])} --> {stamp(s['end'])}\n{s['text']}\n" for s in TRUTH["speech"]]
    path.write_text("WEBVTT\n\n" + "\n".join(cues))


def _spans() -> list[dict]:
    return [
        {"text": text, "appeared": slide["start"], "disappeared": slide["end"]}
        for slide in TRUTH["slides"]
        for text in (slide["title"], slide["body"])
    ]


async def _search(query: str, **extra) -> list[dict]:
    found = await call_ok(
        "semantic_search_transcripts", {"query": query, "auto_index": False, **extra}
    )
    return found["results"]


async def test_speech_and_screen_live_side_by_side(tmp_path):
    _vtt(tmp_path / "lecture.vtt")
    await call_ok("index_transcript_files", {"path": str(tmp_path / "lecture.vtt")})
    stored = await index_screen_text(VideoInfo("lecture", "Lecture"), _spans(), source_path="x")
    assert stored == {"video_id": "lecture", "chunk_count": 6}

    sentence = TRUTH["speech"][1]
    said = (await _search(sentence["text"]))[0]
    assert said["evidence"] == "speech" and abs(said["match_time"] - sentence["start"]) <= 5
    slide = TRUTH["slides"][4]
    shown = (await _search(slide["body"]))[0]
    assert shown["evidence"] == "screen" and abs(shown["match_time"] - slide["start"]) <= 5
    assert shown["text"] == f"{slide['title']} {slide['body']}"

    assert {m["evidence"] for m in await _search("energy", evidence="screen")} <= {"screen"}
    assert {m["evidence"] for m in await _search("energy", evidence="speech")} == {"speech"}

    # re-indexing either kind leaves the other whole
    await call_ok(
        "index_transcript_files", {"path": str(tmp_path / "lecture.vtt"), "force_reindex": True}
    )
    assert (await _search(slide["body"], evidence="screen"))[0]["video_id"] == "lecture"
    await index_screen_text(VideoInfo("lecture", "Lecture"), _spans()[:2], source_path="x")
    assert len(await _search("Vaccines immune memory", evidence="screen", k=10)) == 1
    assert (await _search(sentence["text"], evidence="speech"))[0]["video_id"] == "lecture"
    record = await call_ok("transcript_get", {"video_id": "lecture"})
    assert len(record["segments"]) == len(TRUTH["speech"])  # the speech record was kept

    # deleting the video removes both kinds
    deleted = await call_ok("delete_indexed_video", {"video_id": "lecture"}, caller=_admin())
    assert deleted["chunks_deleted"] >= 2


def _admin():
    from video_research.handlers.context import Caller

    return Caller("admin", "admin")


def test_spans_shown_together_are_one_chunk_and_cited_as_on_screen():
    groups = group_spans(_spans())
    assert [g["lines"] for g in groups[:2]] == [
        ["Photosynthesis", "Light becomes sugar"],
        ["Mitochondria", "Cells burn glucose"],
    ]
    label = cite(
        "TranscriptChunks", {"video_title": "Lecture", "start_time": 24, "evidence": "screen"}
    )
    assert label["label"].endswith("(on screen)")
    spoken = cite("TranscriptChunks", {"video_title": "Lecture", "start_time": 24})
    assert "on screen" not in spoken["label"]


async def test_a_video_with_only_screen_text_still_waits_for_its_transcript():
    from video_research.transcripts.indexer import indexed_ids

    await index_screen_text(VideoInfo("dQw4w9WgXcQ", "Talk"), _spans(), source_path="/v.mp4")
    assert (await call_ok("get_indexed_videos", {}))["videos"] == []
    assert await indexed_ids(["dQw4w9WgXcQ"]) == set()
    assert (await _search("Plate Tectonics"))[0]["video_id"] == "dQw4w9WgXcQ"
    deleted = await call_ok("delete_indexed_video", {"video_id": "dQw4w9WgXcQ"}, caller=_admin())
    assert deleted["chunks_deleted"] == 6
