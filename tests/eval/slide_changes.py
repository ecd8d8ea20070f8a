"""Slide changes on one template: what fits the text-sensitive frame change, and how many
slides get read. `python -m tests.eval.slide_changes [--fit] [--read]`.

--fit (default): every video of the mixed-media set (tests/eval/mixed_media_make.py, made
on demand) is walked as scene detection walks it (SAMPLE_FPS, frames scaled by swscale),
and each candidate change measure is printed at the true slide changes (truth.json: the
smallest) and between them (the largest), with the ratio of the two. Beside them, frames
with motion everywhere (FFmpeg's testsrc2 and a mandelbrot zoom, made here) show how many
cuts each measure would add to footage that has none. The threshold written into
video_research/media/scenes.py (TEXT_CHANGED, PIXEL_CHANGED's use at TEXT_SIZE) comes from
this table: the geometric middle of the gap between the largest change between slides
and the smallest at a slide change.

--read: detect_scenes + read_screen_text on every video of the set; prints, per video,
the scenes found, the OCR runs, the seconds spent, and the slides whose every line was read
(a line counts as read when a span's text holds it, letters and digits case folded, or is
within the timeline's own SIMILAR ratio of it) inside the slide's span.
"""

from __future__ import annotations

import argparse
import difflib
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tests.eval.mixed_media import load
from video_research.media.limits import MediaLimits


def _walk(path: Path, size: tuple[int, int]) -> list[tuple[float, np.ndarray]]:
    from video_research.media.decode import walk
    from video_research.media.probe import describe, open_container
    from video_research.media.scenes import SAMPLE_FPS

    limits = MediaLimits()
    with open_container(str(path), limits) as container:
        info = describe(container, str(path), limits)
        return list(walk(container, info, limits, size=size, sample_fps=SAMPLE_FPS))


def _blocks(pixels: np.ndarray, factor: int) -> np.ndarray:
    h, w = pixels.shape[:2]
    shaped = pixels.reshape(h // factor, factor, w // factor, factor, *pixels.shape[2:])
    return shaped.mean(axis=(1, 3))


def _gray(rgb: np.ndarray) -> np.ndarray:
    return rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)


def measures(previous: np.ndarray, current: np.ndarray) -> dict[str, float]:
    """Candidate changes between two 256x144 RGB frames."""
    from video_research.media.scenes import frame_change

    small = np.abs(_blocks(current, 4) - _blocks(previous, 4))
    found = {"colour 64x36 (today)": frame_change(small)}
    for factor, label in ((1, "256x144"), (2, "128x72")):
        a = _gray(_blocks(previous, factor) if factor > 1 else previous)
        b = _gray(_blocks(current, factor) if factor > 1 else current)
        difference = np.abs(b - a)
        for level in (10, 20, 40):
            found[f"gray {label} share>{level}"] = float((difference > level).mean())
    return found


def _motion_clips(folder: Path) -> list[Path]:
    made = []
    for name, source in (
        ("testsrc2", "testsrc2=s=1280x720:r=25:d=20"),
        ("mandelbrot", "mandelbrot=s=1280x720:r=25,trim=duration=20"),
    ):
        out = folder / f"{name}.mp4"
        subprocess.run(
            ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source]
            + ["-c:v", "libx264", "-preset", "veryfast", "-crf", "28", str(out)],
            check=True,
        )
        made.append(out)
    return made


def fit() -> None:
    mixed = load()
    at_change: dict[str, list[tuple[float, str]]] = {}
    between: dict[str, list[tuple[float, str]]] = {}
    for video in mixed.media:
        slides = mixed.truth[video.stem]["slides"]
        changes = [slide["start"] for slide in slides[1:]]
        frames = _walk(video, (256, 144))
        for (_, before), (moment, pixels) in zip(frames, frames[1:], strict=False):
            where = f"{video.stem}@{moment:.2f}"
            # the first frame walked at or after a change shows the new slide
            opened = [c for c in changes if moment - 1 / 5 - 1e-6 < c <= moment + 1e-6]
            target = at_change if opened else between
            for name, value in measures(before.astype(np.int16), pixels.astype(np.int16)).items():
                target.setdefault(name, []).append((value, where))
    print("measure | smallest at a slide change | largest between changes | ratio")
    for name in at_change:
        low = min(at_change[name])
        high = max(between[name])
        ratio = low[0] / high[0] if high[0] else math.inf
        print(f"{name} | {low[0]:.4f} ({low[1]}) | {high[0]:.4f} ({high[1]}) | {ratio:.1f}")
        if high[0] < low[0] and name.startswith("gray"):
            # never under one pixel of the thumbnail: a share of none is no measure of noise
            width, height = (int(v) for v in name.split()[1].split("x"))
            middle = math.sqrt(max(high[0], 1 / (width * height)) * low[0])
            print(f"    fitted threshold (geometric middle of the gap): {middle:.4f}")
    with tempfile.TemporaryDirectory() as folder:
        from video_research.media.scenes import ADAPTIVE_RATIO, WINDOW

        for clip in _motion_clips(Path(folder)):
            frames = _walk(clip, (256, 144))
            series: dict[str, list[float]] = {}
            for (_, before), (_, pixels) in zip(frames, frames[1:], strict=False):
                for name, value in measures(
                    before.astype(np.int16), pixels.astype(np.int16)
                ).items():
                    series.setdefault(name, []).append(value)
            for name, values in series.items():
                # how often a change stands ADAPTIVE_RATIO times above its WINDOW before it
                spikes = sum(
                    1
                    for n in range(1, len(values))
                    if values[n] >= ADAPTIVE_RATIO * np.mean(values[max(0, n - WINDOW) : n])
                )
                print(
                    f"{clip.stem}: {name}: median {np.median(values):.4f}, "
                    f"max {max(values):.4f}, adaptive spikes {spikes} of {len(values)}"
                )


def _held(line: str, texts: list[str]) -> bool:
    from video_research.media.ocr import SIMILAR, key

    want = key(line)
    for text in texts:
        got = key(text)
        if want in got or difflib.SequenceMatcher(None, want, got).ratio() >= SIMILAR:
            return True
    return False


def read() -> None:
    from video_research.media.ocr import read_screen_text
    from video_research.media.scenes import detect_scenes

    mixed = load()
    limits = MediaLimits()
    total = read_slides = 0
    spent = 0.0
    for video in mixed.media:
        started = time.perf_counter()
        scenes = detect_scenes(str(video), limits)["scenes"]
        found = read_screen_text(str(video), limits, scenes=scenes)
        seconds = time.perf_counter() - started
        spent += seconds
        missed = []
        for slide in mixed.truth[video.stem]["slides"]:
            shown = [
                span["text"]
                for span in found["spans"]
                if span["appeared"] < slide["end"] and span["disappeared"] > slide["start"]
            ]
            total += 1
            if all(_held(line, shown) for line in slide["lines"]):
                read_slides += 1
            else:
                missed.append(slide["id"])
        print(
            f"{video.stem}: {len(scenes)} scenes, {found['keyframes_read']} OCR runs, "
            f"{seconds:.1f} s; slides not read: {', '.join(missed) or 'none'}"
        )
    print(f"slides read: {read_slides} of {total}; {spent:.1f} s for scenes + OCR of the set")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--read", action="store_true")
    args = parser.parse_args(argv)
    if args.fit or not args.read:
        fit()
    if args.read:
        read()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
