"""Slides of one template whose text changes: every slide is read and found.

template_slides.mp4 (tests/fixtures/media/make_template_slides.py): three 4 s slides with
the same background, header and title, one body line changing, joined with `-c copy`,
no audio. Their colour changes by less than the scene threshold; only the text tells them
apart (video_research/media/scenes.py, `text_change`). Indexed through index_media_files,
each slide's line must be found as screen evidence inside its own span, each read once.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.calls import call_ok
from video_research.media.ocr import key

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"


async def test_each_slide_of_one_template_is_read_and_found(tmp_path):
    video = tmp_path / "template_slides.mp4"
    shutil.copyfile(FIXTURES / "template_slides.mp4", video)
    truth = json.loads((FIXTURES / "template_slides.json").read_text())
    slides = truth["slides"]

    indexed = await call_ok("index_media_files", {"paths": [str(video)]})
    # one chunk per slide: a slide read once and merged with the one before would be fewer
    assert indexed["screen_chunk_count"] == len(slides), indexed

    for slide in slides:
        body = slide["lines"][-1]
        found = await call_ok(
            "semantic_search_transcripts",
            {"query": body, "k": 3, "evidence": "screen", "auto_index": False},
        )
        best = found["results"][0]
        assert key(body) in key(best["text"]), (body, found["results"])
        assert slide["start"] - 0.5 <= best["match_time"] < slide["end"], (slide, best)

    # the OCR ran once per slide, not once per decoded frame
    shown = await call_ok("media_screen_text", {"path": str(video)})
    assert shown["keyframes_read"] == len(slides), shown
    for slide in slides:
        body = key(slide["lines"][-1])
        (span,) = [s for s in shown["spans"] if body in key(s["text"])]
        assert abs(span["appeared"] - slide["start"]) <= 0.5, (span, slide)
        assert abs(span["disappeared"] - slide["end"]) <= 0.5, (span, slide)
