"""On-screen text: OCR of each scene's keyframes into a timeline of text spans, each with
the time it appeared and disappeared.

RapidOCR (rapidocr-onnxruntime) reads the frames: PaddleOCR's detection, angle and
recognition models converted to ONNX and shipped in its wheel, run by ONNX Runtime,
which the knowledge store already uses: no model download at run time, no torch.

Sampling: one frame in the middle of each scene (a slide, a shot), and a scene longer
than `sample_seconds` is read every `sample_seconds` (text that builds up on a slide).
Each sample stands for the part of its scene around it, so a text's span runs from the
start of the first sample part where it was read to the end of the last.

Merging: a line's key is its letters and digits, case folded (OCR drops or adds spaces
from frame to frame); a key read in consecutive samples is one span; a key within a
small edit distance of one read in the sample before (a misread letter) counts as that
one. Overlays: text on screen for at least `overlay_fraction` of the time read
(logos, watermarks, channel names) is reported apart and left out of the timeline.
"""

from __future__ import annotations

import difflib
import math
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, TypedDict

from video_research.media.decode import Tick, iter_frames_at, no_tick
from video_research.media.limits import Deadline, MediaLimits, check_range
from video_research.media.probe import describe, open_container, require_video
from video_research.media.scenes import (
    TEXT_CHANGED,
    THUMBNAIL,
    SceneFields,
    detect_scenes,
    picture_change,
)

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.media_screen_text_output import Overlay


class Span(TypedDict):
    """Text shown from `appeared` to `disappeared` (schemas/common/media.json's text
    span, before its link)."""

    text: str
    appeared: float
    disappeared: float
    confidence: float
    frames: int


class Timeline(TypedDict):
    spans: list[Span]
    overlays: list[Overlay]


class ScreenText(Timeline):
    duration_seconds: float
    scene_starts: list[float]
    keyframes_read: int
    ms_per_keyframe: float


MAX_SAMPLES = 2000
"""Keyframes one call reads at most: at ~2 s of OCR each on two cores, about an hour."""
OCR_EDGE = 1280
"""Longest edge of the frames OCR reads: 720p as is, larger scaled down."""
UNCHANGED = 0.01
"""A keyframe whose colour changed less than this (`scenes.frame_change`) since the sample
before it, and whose text less than `scenes.TEXT_CHANGED` (`scenes.text_change`), is the
same picture and is not read again: a static slide sampled every `sample_seconds` costs one
OCR, not one per sample. The text measure is what tells two slides of one template apart
(their colour changes by less than this); with it, a picture repeated across a cut (a
flash, a cut back to the same slide) is not read twice either."""
SIMILAR = 0.85
"""Two keys this similar (difflib ratio) in neighbouring samples are one text misread."""

_lock = threading.Lock()


def engine_options(threads: int) -> dict[str, int]:
    """RapidOCR's thread settings for `threads` ONNX Runtime threads (0: its default).

    A setting, not a constant: on 2 cores ONNX Runtime's pool of one thread per core spends
    1.5-2x the CPU of one thread; that bought 0.77x the time with the machine idle but cost
    1.8x under load (bench_ocr_engines), so the best count depends on the host.
    """
    count = threads if threads > 0 else -1  # RapidOCR's "leave ONNX Runtime's default"
    return {"intra_op_num_threads": count, "inter_op_num_threads": count}


@cache
def engine(threads: int = 0) -> Any:
    """The RapidOCR engine of the process for a thread count (loading its three models
    takes ~1 s)."""
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR(**engine_options(threads))


def read_image(image: Any, min_confidence: float, threads: int = 0) -> list[tuple[str, float]]:
    """(text, confidence) of each line read in a PIL image, top to bottom."""
    import numpy as np

    pixels = np.asarray(image.convert("RGB"))[:, :, ::-1]  # RapidOCR takes OpenCV's BGR
    with _lock:  # one read at a time: two at once only contend for the cores
        found, _ = engine(threads)(pixels)
    lines = []
    for box, text, score in found or []:
        text = " ".join(str(text).split())
        if text and float(score) >= min_confidence:
            lines.append((text, round(float(score), 3), min(point[1] for point in box)))
    lines.sort(key=lambda line: line[2])
    return [(text, score) for text, score, _ in lines]


@dataclass
class Sample:
    time: float
    low: float
    high: float
    scene: int = 0
    lines: list[tuple[str, float]] = field(default_factory=list)


def key(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def sample_times(scenes: list[SceneFields], sample_seconds: float) -> list[Sample]:
    samples = []
    for scene in scenes:
        length = scene["end"] - scene["start"]
        parts = max(1, math.ceil(length / sample_seconds))
        step = length / parts
        for n in range(parts):
            low = scene["start"] + n * step
            samples.append(
                Sample(
                    round(low + step / 2, 3), round(low, 3), round(low + step, 3), scene["index"]
                )
            )
    return samples


def build_timeline(
    samples: list[Sample], overlay_fraction: float, keep_overlays: bool = False
) -> Timeline:
    """Spans of text from OCR'd samples (in time order); overlays reported apart."""
    open_spans: dict[str, dict[str, Any]] = {}
    spans: list[dict[str, Any]] = []
    for sample in samples:
        seen: dict[str, tuple[str, float]] = {}
        for text, score in sample.lines:
            k = key(text)
            if not k:
                continue
            if k not in open_spans:
                close = difflib.get_close_matches(k, list(open_spans), n=1, cutoff=SIMILAR)
                k = close[0] if close else k
            seen.setdefault(k, (text, score))
        for k in [k for k in open_spans if k not in seen]:
            spans.append(open_spans.pop(k))
        for k, (text, score) in seen.items():
            span = open_spans.get(k)
            if span is None:
                span = open_spans[k] = {
                    "key": k,
                    "variants": Counter(),
                    "scores": [],
                    "appeared": sample.low,
                    "order": len(spans) + len(open_spans),
                }
            span["variants"][text] += 1
            span["scores"].append(score)
            span["disappeared"] = sample.high
    spans.extend(open_spans.values())
    covered = sum(sample.high - sample.low for sample in samples) or 1.0
    on_screen: Counter[str] = Counter()
    for span in spans:
        on_screen[span["key"]] += span["disappeared"] - span["appeared"]
    overlays = {k for k, seconds in on_screen.items() if seconds >= overlay_fraction * covered}
    if len(samples) < 3:
        overlays = set()  # too little seen to tell an overlay from one long slide
    timeline: list[Span] = []
    for span in sorted(spans, key=lambda s: (s["appeared"], s["order"])):
        if span["key"] in overlays and not keep_overlays:
            continue
        variants = span["variants"]
        # the reading seen most often; among equals the one with the most spaces kept
        text = max(variants, key=lambda v: (variants[v], v.count(" "), len(v)))
        timeline.append(
            {
                "text": text,
                "appeared": round(span["appeared"], 3),
                "disappeared": round(span["disappeared"], 3),
                "confidence": round(sum(span["scores"]) / len(span["scores"]), 3),
                "frames": len(span["scores"]),
            }
        )
    named_overlays: list[Overlay] = []
    for k in sorted(overlays):
        readings: Counter[str] = Counter()
        for span in spans:
            if span["key"] == k:
                readings.update(span["variants"])
        text = max(readings, key=lambda v: (readings[v], v.count(" "), len(v)))
        named_overlays.append({"text": text, "seconds_on_screen": round(on_screen[k], 3)})
    return {"spans": timeline, "overlays": named_overlays}


def read_screen_text(
    path: str,
    limits: MediaLimits,
    *,
    start: float = 0.0,
    end: float | None = None,
    sample_seconds: float = 10.0,
    min_confidence: float = 0.6,
    overlay_fraction: float = 0.6,
    keep_overlays: bool = False,
    scene_threshold: float = 0.02,
    tick: Tick = no_tick,
    scenes: list[SceneFields] | None = None,
) -> ScreenText:
    """The on-screen text timeline of `path` between `start` and `end`.

    Returns {"duration_seconds", "spans", "overlays", "scene_starts" (the cuts, seconds),
    "keyframes_read" (OCR runs: samples equal to the one before are not read again),
    "ms_per_keyframe" (per sample)}.
    Scene detection takes the first part of the progress, OCR the rest: `tick` gets the
    media time of each keyframe read. `scenes`: the range's scene cuts (`detect_scenes`),
    when the caller found them already, in a call of its own with progress of its own.
    """
    with open_container(path, limits) as container:
        info = describe(container, path, limits)
        require_video(info, path)
        low, high = check_range(start, end, info.duration_seconds)
        if scenes is None:
            # scene detection checks for cancellation too; its progress stays at the start
            scenes = detect_scenes(
                path,
                limits,
                threshold=scene_threshold,
                start=low,
                end=high,
                tick=lambda _: tick(low),
            )["scenes"]
        samples = sample_times(scenes, sample_seconds)[:MAX_SAMPLES]
        spent = 0.0
        reused = 0
        previous: tuple[Sample, Any] | None = None
        by_time = {sample.time: sample for sample in samples}
        # MEDIA_DECODE_SECONDS bounds the decoding; OCR time is the keyframe count's
        decoding = Deadline(limits.decode_seconds, info.path)
        for picture in iter_frames_at(
            container,
            info,
            list(by_time),
            limits,
            max_edge=OCR_EDGE,
            tick=lambda _: None,
            deadline=decoding,
        ):
            began = time.perf_counter()
            sample = by_time[picture.requested]
            thumbnail = _thumbnail(picture.image)
            if previous is not None and _same_picture(previous[1], thumbnail):
                sample.lines = previous[0].lines  # the same picture: read once
                reused += 1
            else:
                sample.lines = read_image(picture.image, min_confidence, limits.ocr_threads)
            previous = (sample, thumbnail)
            took = time.perf_counter() - began
            spent += took
            decoding.extend(took)
            tick(picture.requested)
    timeline = build_timeline(samples, overlay_fraction, keep_overlays)
    return {
        "duration_seconds": info.duration_seconds,
        **timeline,
        "scene_starts": [scene["start"] for scene in scenes[1:]],
        "keyframes_read": len(samples) - reused,
        "ms_per_keyframe": round(spent * 1000 / len(samples), 1) if samples else 0.0,
    }


def _thumbnail(image: Any) -> Any:
    """The picture as scene detection compares it: area means (Pillow's BOX, as swscale's
    AREA) at THUMBNAIL size."""
    import numpy as np
    from PIL import Image

    small = image.convert("RGB").resize(THUMBNAIL, resample=Image.Resampling.BOX)
    return np.asarray(small, dtype=np.int16)


def _same_picture(previous: Any, current: Any) -> bool:
    colour, text = picture_change(previous, current)
    return colour < UNCHANGED and text < TEXT_CHANGED
