"""Hostile and oversized transcript files: parsing and chunking stay linear, a file
beyond a per-file limit or time budget fails alone with a clear reason, and no file (a
non-UTF-8 name, JSON nested past the recursion limit, a 401-digit number) sinks the batch
it is in. The files are generated here, at sizes where quadratic code would blow the few
seconds each check allows."""

from __future__ import annotations

import json
import os
import random
import time

import pytest

from tests.transcripts.test_transcript_tools import call
from video_research.transcripts import parsers
from video_research.transcripts.chunker import WORDS, chunk_cues
from video_research.transcripts.parsers import (
    MAX_TEXT_CHARS,
    Budget,
    TranscriptFormatError,
    TranscriptTooLarge,
    clean_text,
    parse_content,
    parse_file,
)

VOCABULARY = [
    "the",
    "borrow",
    "checker",
    "refuses",
    "programs",
    "3.14",
    "starter",
    "tidal",
    "turbine",
    "café",
    "don't",
]


def _clock(seconds: float, comma: bool = False) -> str:
    millis = int(round(seconds * 1000))
    text = f"{millis // 3_600_000:02d}:{millis // 60_000 % 60:02d}:{millis // 1000 % 60:02d}"
    return f"{text}{',' if comma else '.'}{millis % 1000:03d}"


def _many_cue_vtt(cues: int) -> str:
    rng = random.Random(7)
    lines = ["WEBVTT", ""]
    for n in range(cues):
        lines += [f"{_clock(n * 0.5)} --> {_clock(n * 0.5 + 0.5)}", rng.choice(VOCABULARY), ""]
    return "\n".join(lines)


def _single_caption_srt(words: int) -> str:
    rng = random.Random(11)
    text = " ".join(rng.choice(VOCABULARY) for _ in range(words))
    return f"1\n00:00:00,000 --> 09:00:00,000\n{text}\n"


def _timed(fn, *args, **kwargs):
    started = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - started


def test_a_vtt_of_60k_cues_parses_and_chunks_in_seconds():
    content = _many_cue_vtt(60_000)  # ~2.3 MB: quadratic code would blow the limit
    parsed, parse_s = _timed(parse_content, content, ".vtt")
    (chunks, fitted), chunk_s = _timed(chunk_cues, parsed.cues)
    assert len(parsed.cues) > 50_000 and chunks
    assert parse_s + chunk_s < 30, (parse_s, chunk_s)  # 2-6 s on a busy 2-core machine
    assert all(a.start <= b.start for a, b in zip(chunks, chunks[1:], strict=False))


def test_a_single_caption_of_megabytes_is_cut_between_words_in_seconds():
    content = _single_caption_srt(200_000)  # ~1.4 MB in one cue
    parsed = parse_content(content, ".srt")
    (chunks, fitted), seconds = _timed(chunk_cues, parsed.cues)
    assert seconds < 30, seconds  # ~3 s; the tokenizer sees slices, never the whole text
    assert len(fitted) > 1000
    words = WORDS.findall(" ".join(c.text for c in fitted))
    assert words == WORDS.findall(parsed.cues[0].text)
    assert all(a.end <= b.start + 1e-6 for a, b in zip(fitted, fitted[1:], strict=False))


def test_markup_cleaning_is_linear_on_unclosed_brackets():
    # `<[^>]*>` rescans the rest of the text from every `<`: quadratic, minutes here.
    hostile = "<" * 300_000 + "words" + "{\\" * 100_000
    text, seconds = _timed(clean_text, hostile)
    assert seconds < 2, seconds
    assert text.endswith("words" + "{\\" * 100_000) or "words" in text


def test_a_rolling_caption_of_many_lines_is_compared_a_few_lines_deep():
    block = "\n".join(f"line {n}" for n in range(30_000))
    content = f"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n{block}\n\n00:00:02.000 --> 00:00:03.000\n{block}\nnew words\n"
    parsed, seconds = _timed(parse_content, content, ".vtt")
    assert seconds < 5, seconds
    assert len(parsed.cues) == 2


def test_a_file_past_its_time_budget_fails_with_the_reason(tmp_path):
    path = tmp_path / "slow.vtt"
    path.write_text(_many_cue_vtt(20_000))
    with pytest.raises(TranscriptTooLarge, match="took longer than the 0.001 s allowed"):
        budget = Budget(0.001)
        time.sleep(0.01)
        parse_file(path, budget)


def test_more_text_than_a_transcript_holds_is_refused_before_tokenizing():
    words = MAX_TEXT_CHARS // 5 + 10
    content = _single_caption_srt(words)
    with pytest.raises(TranscriptTooLarge, match="characters of caption text"):
        parse_content(content, ".srt")


@pytest.mark.parametrize(
    "content, message",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('[{"text": "hi", "start": ' + "9" * 401 + "}]", "is not a number"),
        ('[{"text": "hi", "start": ' + "9" * 5000 + "}]", "not a transcript"),
        ('[{"text": "hi", "start": NaN}]', "NaN"),
        ('{"events": [{"tStartMs": 1e999, "segs": [{"utf8": "x"}]}]}', "non-negative"),
    ],
)
def test_json_that_python_cannot_hold_is_a_format_error(content, message):
    with pytest.raises(TranscriptFormatError, match=message):
        parse_content(content, ".json")


def test_deep_xml_and_stamped_text_do_not_recurse():
    deep = (
        "<timedtext><body>" + "<p t='0'>" * 50_000 + "x" + "</p>" * 50_000 + "</body></timedtext>"
    )
    parsed, seconds = _timed(parsers.parse_timedtext, deep)
    assert seconds < 5 and [c.text for c in parsed.cues] == ["x"]
    text = "[00:00:01] " + "(" * 200_000 + "[0:01]" * 1000 + "\n"
    assert parse_content(text, ".md").cues


# ----------------------------------------------------------------------------- in a batch

GOOD_VTT = (
    "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nThe lighthouse keeper logs every passing ship.\n"
)


def _name(raw: bytes) -> str:
    return os.fsdecode(raw)


async def test_each_bad_file_fails_alone_and_the_rest_is_indexed(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.vtt").write_text(GOOD_VTT)
    (folder / _name(b"caf\xe9 talk.vtt")).write_text(GOOD_VTT.replace("lighthouse", "harbour"))
    (folder / _name(b"deep-\xff.json")).write_text("[" * 100_000 + "]" * 100_000)
    (folder / "number.json").write_text('[{"text": "hi", "start": ' + "9" * 401 + "}]")
    (folder / "huge.srt").write_text(_single_caption_srt(MAX_TEXT_CHARS // 5 + 10))
    (folder / "notes.txt").write_text("no times in here at all")
    (folder / "Some video [dQw4w9WgXcQ].info.json").write_text('{"extractor": "youtube"}')

    result = await call("index_transcript_files", {"path": str(folder), "fetch_metadata": False})
    assert "error" not in result, result
    json.dumps(result, ensure_ascii=False).encode("utf-8")  # every name is encodable
    batch = result["batch"]
    assert result["files_found"] == 6  # the .info.json is metadata, not a transcript
    assert sorted(item["video_id"] for item in batch["indexed"]) == ["caf_talk", "good"]
    failed = {item["file"].rsplit("/", 1)[-1]: item for item in batch["failed"]}
    assert set(failed) == {"deep-\\xff.json", "number.json", "huge.srt", "notes.txt"}
    assert failed["deep-\\xff.json"]["reason"] == "unreadable"
    assert "nested too deeply" in failed["deep-\\xff.json"]["error"]
    assert "is not a number" in failed["number.json"]["error"]
    assert "arguments" not in failed["number.json"]["error"]
    assert failed["huge.srt"]["reason"] == "too_large"
    assert "split the file" in failed["huge.srt"]["error"]
    assert "no timestamps" in failed["notes.txt"]["error"]

    video = await call("transcript_get", {"video_id": "caf_talk"})
    assert video["video"]["source_path"].endswith("caf\\xe9 talk.vtt")
    assert video["video"]["video_title"] == "caf\\xe9 talk"
    again = await call("index_transcript_files", {"path": str(folder), "fetch_metadata": False})
    assert sorted(again["batch"]["skipped"]) == ["caf_talk", "good"]  # unchanged, found again


async def test_the_time_budget_fails_a_file_alone(tmp_path, configure):
    folder = tmp_path / "budget"
    folder.mkdir()
    (folder / "a_small.vtt").write_text(GOOD_VTT)
    (folder / "b_long.vtt").write_text(_many_cue_vtt(80_000))
    configure(TRANSCRIPT_FILE_BUDGET_SECONDS="0.3")
    result = await call("index_transcript_files", {"path": str(folder), "fetch_metadata": False})
    batch = result["batch"]
    assert [item["video_id"] for item in batch["indexed"]] == ["a_small"]
    (failure,) = batch["failed"]
    assert failure["reason"] == "too_large"
    assert "took longer than the 0.3 s allowed" in failure["error"]
    assert "TRANSCRIPT_FILE_BUDGET_SECONDS" in failure["hint"]


def test_budget_checks_are_cheap():
    budget = Budget(60)
    started = time.perf_counter()
    for _ in range(1_000_000):
        budget.tick("x")
    assert time.perf_counter() - started < 2
