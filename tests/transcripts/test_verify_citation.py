"""verify_citation on transcripts indexed through the real tool: a right quote, a quote
40 s off, a close quote, a paraphrase, a quote from another video and a fabricated one;
the link as a YouTube URL, a file:// media fragment or video id and time; bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.calls import call_error, call_ok
from tests.helpers import DATA, shared_data
from video_research.support import contracts

MEDIA = Path(__file__).resolve().parents[1] / "fixtures" / "media"
RUST = DATA / "transcripts" / "rust_borrowing.srt"
TIDES = DATA / "transcripts" / "vtt" / "How tides make electricity [tIdEs_42xyz].en.vtt"
BORROWING = "Borrowing lets you use a value without taking ownership"  # 0:48-0:59.8


@pytest.fixture
async def indexed(tmp_path):
    folder = tmp_path / "talks"
    folder.mkdir()
    shutil.copy(RUST, folder / "rust_borrowing.srt")
    # the talk's video beside its captions, as people keep them (real media; it gives the link)
    shutil.copy(MEDIA / "clips_joined.mp4", folder / "rust_borrowing.mp4")
    shutil.copy(TIDES, folder / TIDES.name)
    await call_ok("index_transcript_files", {"path": str(folder)})
    return folder


async def check(arguments):
    result = await call_ok("verify_citation", arguments)
    assert contracts.validation_errors("tools/verify_citation.output.json", result) == []
    return result


async def test_a_right_quote_is_exact_with_its_own_link(indexed):
    result = await check({"quote": BORROWING, "video_id": "rust_borrowing", "time": 52})
    assert result["verdict"] == "exact"
    assert result["evidence"]["time"] == 48.0
    assert result["evidence"]["timestamp_url"].endswith("#t=48.0")
    assert result["found_elsewhere"] == []


async def test_a_quote_40_seconds_off_is_found_elsewhere_in_the_same_video(indexed):
    result = await check({"quote": BORROWING, "video_id": "rust_borrowing", "time": 92})
    assert result["verdict"] == "not_there"
    assert result["evidence"] is None
    best = result["found_elsewhere"][0]
    assert best["match"] == "exact" and best["same_video"] and not best["in_window"]
    assert 48 <= best["time"] < 60
    assert "#t=" in best["timestamp_url"]


async def test_a_close_quote_names_the_words_that_differ(indexed):
    quote = "Borrowing lets you use a value without ever taking its ownership"
    result = await check({"quote": quote, "video_id": "rust_borrowing", "time": 50})
    assert result["verdict"] == "close"
    assert {"quoted": "ever", "said": ""} in result["evidence"]["differences"]
    assert {"quoted": "its", "said": ""} in result["evidence"]["differences"]


async def test_a_paraphrase_is_not_the_words_said(indexed):
    quote = "You may work with something through a reference and never become its owner"
    result = await check({"quote": quote, "video_id": "rust_borrowing", "time": 50})
    assert result["verdict"] == "not_there"
    assert all(place["match"] == "meaning" for place in result["found_elsewhere"])


async def test_a_quote_from_another_video_points_to_that_video(indexed):
    quote = "The Rance station in France has run since nineteen sixty six."
    result = await check({"quote": quote, "link": "https://youtu.be/tIdEs_42xyz?t=5"})
    assert result["video_id"] == "tIdEs_42xyz" and result["verdict"] == "not_there"
    result = await check({"quote": quote, "video_id": "rust_borrowing", "time": 63})
    assert result["verdict"] == "not_there"
    best = result["found_elsewhere"][0]
    assert (best["video_id"], best["match"], best["same_video"]) == ("tIdEs_42xyz", "exact", False)
    assert best["timestamp_url"].startswith("https://www.youtube.com/watch?v=tIdEs_42xyz")
    assert 60 <= best["time"] <= 72


async def test_a_fabricated_quote_is_nowhere(indexed):
    quote = "The borrow checker was invented in 1983 by a guild of sailors in Lisbon"
    result = await check({"quote": quote, "video_id": "rust_borrowing", "time": 20})
    assert result["verdict"] == "not_there"
    assert [p for p in result["found_elsewhere"] if p["match"] != "meaning"] == []


async def test_links_youtube_and_file(indexed):
    by_url = await check(
        {
            "quote": "Tidal power plants capture this motion in two main ways",
            "link": "https://www.youtube.com/watch?v=tIdEs_42xyz&t=47s",
        }
    )
    assert (by_url["verdict"], by_url["time"]) == ("exact", 47.0)
    by_file = await check(
        {"quote": BORROWING, "link": f"file://{indexed / 'rust_borrowing.mp4'}#t=55"}
    )
    assert (by_file["video_id"], by_file["verdict"]) == ("rust_borrowing", "exact")


async def test_bad_input(indexed):
    missing = await call_error("verify_citation", {"quote": BORROWING})
    assert missing["category"] == "invalid_input"
    no_time = await call_error(
        "verify_citation", {"quote": BORROWING, "video_id": "rust_borrowing"}
    )
    assert no_time["category"] == "invalid_input" and "time" in no_time["hint"]
    no_words = await call_error(
        "verify_citation", {"quote": " ... !!", "video_id": "rust_borrowing", "time": 3}
    )
    assert no_words["category"] == "invalid_input"
    bad_time = await call_error(
        "verify_citation", {"quote": BORROWING, "link": "https://youtu.be/tIdEs_42xyz?t=soon"}
    )
    assert bad_time["category"] == "invalid_input"
    unknown = await call_error(
        "verify_citation", {"quote": BORROWING, "video_id": "nOtInDeXeD1", "time": 3}
    )
    assert unknown["category"] == "not_found"
    stray = await call_error(
        "verify_citation", {"quote": BORROWING, "link": "file:///etc/passwd#t=3"}
    )
    assert stray["category"] == "not_found"
    huge = await call_error(
        "verify_citation", {"quote": "word " * 1000, "video_id": "rust_borrowing", "time": 3}
    )
    assert huge["category"] == "invalid_input"


SHARED = shared_data()


@pytest.mark.skipif(SHARED is None, reason="the shared real transcripts are local-only")
async def test_on_a_real_transcript(tmp_path):
    source = SHARED / "transcripts" / "3blue1brown" / "-9OUyo8NFZg.srt"
    shutil.copy(source, tmp_path / source.name)
    await call_ok("index_transcript_files", {"path": str(tmp_path / source.name)})
    page = await call_ok("transcript_get", {"video_id": "-9OUyo8NFZg", "start_time": 200})
    segment = page["segments"][2]
    quote, at = segment["text"], segment["start"]
    right = await check({"quote": quote, "video_id": "-9OUyo8NFZg", "time": at + 5})
    assert right["verdict"] == "exact"
    off = await check({"quote": quote, "video_id": "-9OUyo8NFZg", "time": at + 45})
    assert off["verdict"] != "exact"
    assert any(p["same_video"] and abs(p["time"] - at) < 30 for p in off["found_elsewhere"])
