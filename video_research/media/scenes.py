"""Scene cuts: PyAV decodes every frame straight to a 64x36 RGB thumbnail (swscale), and a
cut is where the change from the previous frame (`frame_change`) passes a threshold and is
several times the change of the frames before it (an adaptive rule, as PySceneDetect's
AdaptiveDetector: camera motion raises the background change, a cut stands out of it).

Why not PySceneDetect: its detectors need OpenCV's frame source or a frame loop of our
own anyway; its ContentDetector scores the same kind of mean HSV difference this does.
Decoding dominates the cost (the comparison of two 64x36 arrays is microseconds), so
this runs at the speed of FFmpeg's own `select='gt(scene,x)'` filter on the same file
(see tests/bench/bench_media.py). Hard cuts (slides, edits) are found to the frame;
slow fades and dissolves spread their change over many frames and may be missed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from video_research.media.decode import Tick, no_tick, walk
from video_research.media.limits import MediaLimits, check_range
from video_research.media.probe import describe, open_container, require_video

MIN_SCENE_SECONDS = 0.5
"""Two cuts closer than this are one (a flash, a glitch): the later one is dropped."""
ADAPTIVE_RATIO = 3.0
"""A cut's change is at least this many times the mean change of the frames before it."""
WINDOW = 8
"""Frames whose changes make that mean."""
SAMPLE_FPS = 8.0
"""Frames compared per second: a cut is placed at most 1/8 s late, well inside the half
second a caller needs to land on a scene, at a third of the cost of every frame at 25 fps."""


@dataclass
class Scene:
    index: int
    start: float
    end: float
    score: float
    """The colour change at the cut that opened it (0 for the first scene)."""

    @property
    def middle(self) -> float:
        return round((self.start + self.end) / 2, 3)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "keyframe_time": self.middle}


PIXEL_CHANGED = 20
"""A thumbnail pixel whose largest channel change (0-255) is above this has changed."""


def frame_change(difference: Any) -> float:
    """How much a frame differs from the one before (0-1), from the absolute difference
    of their thumbnails: the mean colour change, or a quarter of the share of pixels that
    changed visibly, whichever is larger. The second catches a cut between two images of
    similar mean colour (one dark slide to another), which the mean alone scores low."""
    mean = float(difference.mean()) / 255.0
    changed = float((difference.max(axis=2) > PIXEL_CHANGED).mean())
    return max(mean, changed / 4)


def detect_scenes(
    path: str,
    limits: MediaLimits,
    *,
    threshold: float = 0.02,
    start: float = 0.0,
    end: float | None = None,
    min_scene_seconds: float = MIN_SCENE_SECONDS,
    tick: Tick = no_tick,
) -> dict[str, Any]:
    """The scenes of `path` between `start` and `end` (seconds; None = the end).

    Returns {"duration_seconds", "scenes": [Scene.to_dict()], "frames_compared"}.
    """
    import numpy as np

    with open_container(path, limits) as container:
        info = describe(container, path, limits)
        require_video(info, path)
        start, stop = check_range(start, end, info.duration_seconds)
        cuts: list[tuple[float, float]] = []
        previous = None
        recent: list[float] = []
        last_time = start
        compared = 0
        for moment, pixels in walk(
            container, info, limits, start=start, end=end, sample_fps=SAMPLE_FPS, tick=tick
        ):
            current = pixels.astype(np.int16)
            if previous is not None:
                change = frame_change(np.abs(current - previous))
                compared += 1
                opened = cuts[-1][0] if cuts else start
                background = sum(recent) / len(recent) if recent else 0.0
                if (
                    change >= threshold
                    and change >= ADAPTIVE_RATIO * background
                    and moment - opened >= min_scene_seconds
                ):
                    cuts.append((round(moment, 3), round(change, 4)))
                    recent.clear()
                else:
                    recent = [*recent[-(WINDOW - 1) :], change]
            previous = current
            last_time = moment
        final = max(stop or 0.0, last_time)
    bounds = [(start, 0.0), *cuts]
    scenes = [
        Scene(
            index=n,
            start=round(at, 3),
            end=round(bounds[n + 1][0] if n + 1 < len(bounds) else final, 3),
            score=score,
        )
        for n, (at, score) in enumerate(bounds)
    ]
    return {
        "duration_seconds": info.duration_seconds,
        "scenes": [scene.to_dict() for scene in scenes if scene.end > scene.start],
        "frames_compared": compared,
    }
