"""Chapters of every indexed video: the author's (a description), the container's, a chapter
file's, or computed (topic shifts in a transcript, slide titles of a lecture video); in
transcript_get and video_chapters, and searchable: a query that matches a chapter title
links to where the chapter starts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.calls import call_error, call_ok
from video_research.transcripts.sources import read_file

DATA = Path(__file__).parent.parent / "data" / "transcripts"
MEDIA = Path(__file__).parent.parent / "fixtures" / "media"
LECTURE = json.loads((MEDIA / "lecture.json").read_text())
TALKS = ("rust_borrowing.srt", "sourdough_whisper.json", "tides.json")


def _stamp(seconds: float) -> str:
    return f"{int(seconds) // 3600:02d}:{int(seconds) % 3600 // 60:02d}:{seconds % 60:06.3f}"


def _vtt(cues: list[tuple[float, float, str]]) -> str:
    body = "\n".join(f"{_stamp(s)} --> {_stamp(e)}\n{t}\n" for s, e, t in cues)
    return "WEBVTT\n\n" + body


def _joined_talks(path: Path) -> list[float]:
    """Three talks on three subjects one after the other, as one transcript (a recording
    of three talks); returns where the second and third begin."""
    cues, joins, offset = [], [], 0.0
    for name in TALKS:
        talk = read_file(DATA / name)
        if cues:
            joins.append(offset)
        cues += [(offset + c.start, offset + c.end, c.text) for c in talk.cues]
        offset = cues[-1][1] + 2.0
    path.write_text(_vtt(cues))
    return joins


async def test_a_transcript_without_chapters_gets_computed_ones_found_by_title(tmp_path):
    joins = _joined_talks(tmp_path / "three_talks.vtt")
    await call_ok("index_transcript_files", {"path": str(tmp_path / "three_talks.vtt")})

    got = await call_ok("video_chapters", {"video_id": "three_talks"})
    parts = got["chapters"]
    assert got["evidence"] == "computed" and parts[0]["start"] == 0
    starts = [p["start"] for p in parts]
    misses = []
    for join in joins:  # where the subject changes is a chapter start (the eval's +-30 s)
        near = min(starts, key=lambda s: abs(s - join))
        assert abs(near - join) <= 30, (join, starts)
        assert "topic" in parts[starts.index(near)]["signals"]
        misses.append(abs(near - join))
    assert min(misses) <= 15, (joins, starts)  # and one of them within a sentence or two
    for before, after in zip(parts, parts[1:], strict=False):
        assert before["end"] == after["start"] and before["title"]
    assert parts[-1]["end"] >= parts[-1]["start"]

    # transcript_get shows the same chapters
    page = await call_ok("transcript_get", {"video_id": "three_talks", "max_segments": 1})
    assert [c["start"] for c in page["video"]["chapters"]] == starts

    # a query with a chapter's title finds that chapter and links to its start
    chosen = parts[starts.index(min(starts, key=lambda s: abs(s - joins[1])))]
    found = await call_ok(
        "semantic_search_transcripts",
        {"query": chosen["title"].replace(" · ", " "), "evidence": "chapter", "auto_index": False},
    )
    top = found["results"][0]
    assert top["evidence"] == "chapter" and top["text"] == chosen["title"]
    assert top["start_time"] == chosen["start"] and top["timestamp_url"] == chosen["timestamp_url"]
    # and a search for what was said is not crowded by chapter titles
    said = await call_ok(
        "semantic_search_transcripts",
        {"query": "tides", "evidence": "speech", "auto_index": False},
    )
    assert {r["evidence"] for r in said["results"]} == {"speech"}


async def test_the_authors_chapters_win_over_computed_ones(tmp_path):
    _joined_talks(tmp_path / "talks.vtt")
    description = "Three talks\n0:00 Borrowing in Rust\n4:02 Baking bread\n8:04 Tidal power"
    await call_ok(
        "index_transcript_files",
        {"path": str(tmp_path / "talks.vtt"), "videos": {"talks": {"description": description}}},
    )
    got = await call_ok("video_chapters", {"video_id": "talks"})
    assert got["evidence"] == "author"
    assert [(c["start"], c["title"]) for c in got["chapters"]] == [
        (0, "Borrowing in Rust"),
        (242, "Baking bread"),
        (484, "Tidal power"),
    ]
    assert got["chapters"][0]["end"] == 242 and got["chapters"][0]["signals"] == ["description"]
    found = await call_ok(
        "semantic_search_transcripts",
        {"query": "tidal power", "evidence": "chapter", "auto_index": False},
    )
    top = found["results"][0]
    assert (top["text"], top["start_time"], top["match_time"]) == ("Tidal power", 484, 484)


def _captions(path: Path) -> None:
    path.write_text(_vtt([(s["start"], s["end"], s["text"]) for s in LECTURE["speech"]]))


async def test_chapters_from_the_container_a_chapter_file_and_the_slides(tmp_path):
    """Three copies of the lecture video, each with its captions beside it: one with
    chapters in its container, one with a chapter file beside it, one with neither, whose
    slide titles become its chapters."""
    folder, pictures = tmp_path / "course", tmp_path / "pictures"
    folder.mkdir()
    pictures.mkdir()
    shutil.copy(MEDIA / "lecture_chapters.mp4", folder / "boxed.mp4")
    shutil.copy(MEDIA / "lecture.mp4", folder / "noted.mp4")
    shutil.copy(MEDIA / "lecture.mp4", pictures / "slides.mp4")
    for video in (folder / "boxed.mp4", folder / "noted.mp4", pictures / "slides.mp4"):
        _captions(video.with_suffix(".en.vtt"))
    (folder / "noted.chapters.txt").write_text("00:00 Plants and cells\n00:36 Space and health\n")
    # OCR (seconds a video) only where the slides are the point
    await call_ok("index_media_files", {"paths": [str(folder)], "screen_text": False})
    await call_ok("index_media_files", {"paths": [str(pictures)], "screen_text": True})

    boxed = await call_ok("video_chapters", {"video_id": "boxed"})
    assert boxed["evidence"] == "container"
    assert [(c["start"], c["title"]) for c in boxed["chapters"]] == [
        (0, "Cells and energy"),
        (24, "Earth and space"),
        (48, "Health and wrap-up"),
    ]
    noted = await call_ok("video_chapters", {"video_id": "noted"})
    assert noted["evidence"] == "file"
    assert [c["title"] for c in noted["chapters"]] == ["Plants and cells", "Space and health"]

    slides = await call_ok("video_chapters", {"video_id": "slides"})
    assert slides["evidence"] == "computed"
    titles = [c["title"] for c in slides["chapters"]]
    assert titles == [s["title"] for s in LECTURE["slides"]], titles
    for chapter, slide in zip(slides["chapters"], LECTURE["slides"], strict=True):
        assert abs(chapter["start"] - slide["start"]) <= 2.5 and "slide" in chapter["signals"]

    # A chapter is found by its words, never by a title's few words' vector alone: a
    # question on the topic of "Earth and space" that shares none of its words lists none.
    drift = await call_ok(
        "semantic_search_transcripts",
        {"query": "how fast do continents drift apart", "k": 20, "auto_index": False},
    )
    assert drift["results"] and all(r["evidence"] != "chapter" for r in drift["results"])
    titled = await call_ok(
        "semantic_search_transcripts", {"query": "earth and space", "auto_index": False}
    )
    assert ("boxed", "chapter", 24) in [
        (r["video_id"], r["evidence"], r["start_time"]) for r in titled["results"]
    ]


async def test_video_chapters_refuses_what_is_not_indexed():
    missing = await call_error("video_chapters", {"video_id": "never_indexed"})
    assert missing["category"] == "not_found" and "Index it first" in missing["hint"]
    bad = await call_error("video_chapters", {"video_id": 42})
    assert bad["category"] == "invalid_input"
    empty = await call_error("video_chapters", {})
    assert empty["category"] == "invalid_input"


def test_hostile_chapter_files_give_no_chapters(tmp_path):
    """A chapter file that is binary, oversized, a link out of the roots or a flood of
    sections gives what it can (bounded) or nothing, never a failure."""
    from video_research.support.paths import confine_to
    from video_research.transcripts import chapter_files

    root = tmp_path / "root"
    root.mkdir()
    video = root / "talk.mp4"

    def confine(path: Path) -> Path:  # what index_media_files hands in: the roots' check
        return confine_to(path, [root.resolve()])

    (root / "talk.chapters.txt").write_bytes(b"\x00\xff\xfe" * 1000)
    assert chapter_files.beside(video, confine) == []
    (root / "talk.chapters.txt").write_text("00:00 Intro\n" * (chapter_files.MAX_BYTES // 5))
    assert chapter_files.beside(video, confine) == []  # over MAX_BYTES: not read
    flood = ";FFMETADATA1\n" + "".join(
        f"[CHAPTER]\nTIMEBASE=1/1000\nSTART={n * 1000}\ntitle=Part {n}\n" for n in range(5000)
    )
    (root / "talk.chapters.txt").write_text(flood)
    assert len(chapter_files.beside(video, confine)) == chapter_files.MAX_CHAPTERS
    (root / "talk.chapters.txt").unlink()
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("00:00 Secret\n01:00 Other\n")
    (root / "talk.chapters.txt").symlink_to(outside)
    assert chapter_files.beside(video, confine) == []
    bad = ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/0\nSTART=5\ntitle=x\n[CHAPTER]\nSTART=abc\n"
    assert chapter_files.parse(bad) == []
