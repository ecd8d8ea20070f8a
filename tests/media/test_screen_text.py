"""On-screen text of the lecture fixture: the slides read (character accuracy reported),
the channel name dropped as an overlay, and a search for a slide's words landing within
5 s of when the slide was shown, as evidence "screen" beside the speech."""

from __future__ import annotations

import difflib
import os
import sys

import av
import pytest

from tests.calls import call_ok
from video_research.config import ConfigError, load_settings
from video_research.media.limits import MediaLimits
from video_research.media.ocr import engine_options, read_image

pytestmark = pytest.mark.slow


def _accuracy(read: str, truth: str) -> float:
    """1 - character error rate, from difflib's matching blocks (spaces ignored: OCR
    drops them between words, and search tokenises without them anyway)."""
    read, truth = read.replace(" ", "").casefold(), truth.replace(" ", "").casefold()
    matched = sum(
        block.size for block in difflib.SequenceMatcher(None, read, truth).get_matching_blocks()
    )
    return matched / max(len(truth), len(read))


async def test_slides_are_read_into_a_timeline_and_found_by_search(lecture, truth):
    result = await call_ok(
        "media_screen_text", {"path": str(lecture), "sample_seconds": 60, "index": True}
    )
    assert result["keyframes_read"] == len(truth["slides"])
    assert [o["text"].replace(" ", "") for o in result["overlays"]] == ["SCIENCECHANNEL"]
    assert all("CHANNEL" not in span["text"] for span in result["spans"])
    scores = []
    for slide in truth["slides"]:
        shown = [s for s in result["spans"] if abs(s["appeared"] - slide["start"]) <= 0.5]
        assert shown, f"nothing read for the slide at {slide['start']} s"
        assert all(abs(s["disappeared"] - slide["end"]) <= 0.5 for s in shown)
        read = " ".join(s["text"] for s in shown)
        scores.append(_accuracy(read, f"{slide['title']} {slide['body']}"))
    accuracy = sum(scores) / len(scores)
    print(
        f"\nslide text character accuracy: {accuracy:.3f} over {len(scores)} slides",
        file=sys.stderr,
    )
    assert accuracy >= 0.9, scores

    assert result["indexed"] == {"video_id": "lecture", "chunk_count": len(truth["slides"])}
    for slide in (truth["slides"][2], truth["slides"][3]):
        found = await call_ok(
            "semantic_search_transcripts", {"query": slide["body"], "k": 3, "auto_index": False}
        )
        best = found["results"][0]
        assert best["evidence"] == "screen" and best["video_id"] == "lecture"
        assert abs(best["match_time"] - slide["start"]) <= 5, (best, slide)
        assert best["timestamp_url"].startswith("file://")
    only_speech = await call_ok(
        "semantic_search_transcripts",
        {"query": truth["slides"][2]["body"], "evidence": "speech", "auto_index": False},
    )
    assert only_speech["results"] == []
    # on-screen text alone does not make the video's speech "indexed"
    assert (await call_ok("get_indexed_videos", {}))["videos"] == []


def test_ocr_threads_setting_reaches_the_engine(lecture):
    """MEDIA_OCR_THREADS is the thread count RapidOCR is built with (0: ONNX Runtime's own
    pool), and both read a slide alike: the thread count changes the speed, not the text."""
    assert MediaLimits.from_settings(load_settings(dict(os.environ))).ocr_threads == 0
    settings = load_settings({**os.environ, "MEDIA_OCR_THREADS": "3"})
    assert MediaLimits.from_settings(settings).ocr_threads == 3
    with pytest.raises(ConfigError, match="MEDIA_OCR_THREADS|media_ocr_threads"):
        load_settings({**os.environ, "MEDIA_OCR_THREADS": "-1"})
    assert engine_options(0) == {"intra_op_num_threads": -1, "inter_op_num_threads": -1}
    assert engine_options(1) == {"intra_op_num_threads": 1, "inter_op_num_threads": 1}

    with av.open(str(lecture)) as container:
        stream = container.streams.video[0]
        image = next(f for f in container.decode(stream) if f.time >= 30).to_image()
    one = read_image(image, 0.6, 1)
    assert [text for text, _ in one] == [text for text, _ in read_image(image, 0.6, 0)]
    assert "Plate Tectonics" in [text for text, _ in one]
