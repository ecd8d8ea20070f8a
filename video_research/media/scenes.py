"""Scene cuts: PyAV decodes every frame straight to a 128x72 RGB thumbnail (swscale), and a
cut is where the change from the previous frame passes a threshold and is several times
the change of the frames before it (an adaptive rule, as PySceneDetect's AdaptiveDetector:
camera motion raises the background change, a cut stands out of it).

Two changes are measured (`picture_change`): the colour change of the thumbnail averaged
down to 64x36 (`frame_change`), which finds edits and slides of another colour, and the
share of the 128x72 grayscale thumbnail that changed (`text_change`), which finds a slide
whose text changes on the same template: there the colour hardly moves (0.005-0.016 on the
mixed-media eval's lectures, under the 0.02 threshold) while the lines that changed cover
2-5% of the picture. Either one opens a scene. 128x72 is as small as letters still show:
each pixel averages a 10x10 block of 720p, so compression noise and a moving cursor stay
under the threshold while a changed line of text does not.

Why not PySceneDetect: its detectors need OpenCV's frame source or a frame loop of our
own anyway; its ContentDetector scores the same kind of mean HSV difference this does.
Decoding dominates the cost (the comparison of two 64x36 arrays is microseconds), so
this runs at the speed of FFmpeg's own `select='gt(scene,x)'` filter on the same file
(see tests/bench/bench_media.py). Hard cuts (slides, edits) are found to the frame;
slow fades and dissolves spread their change over many frames and may be missed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

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


class SceneFields(TypedDict):
    """A scene as results carry it (schemas/common/media.json's scene, before its link)."""

    index: int
    start: float
    end: float
    score: float
    keyframe_time: float


class ScenesFound(TypedDict):
    duration_seconds: float
    scenes: list[SceneFields]
    frames_compared: int


@dataclass
class Scene:
    index: int
    start: float
    end: float
    score: float
    """The change at the cut that opened it (0 for the first scene): the larger of the
    colour change and the share of the picture that changed (`picture_change`)."""

    @property
    def middle(self) -> float:
        return round((self.start + self.end) / 2, 3)

    def to_dict(self) -> SceneFields:
        return {
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "score": self.score,
            "keyframe_time": self.middle,
        }


PIXEL_CHANGED = 20
"""A thumbnail pixel whose largest channel change (0-255) is above this has changed (in
grayscale: whose brightness change is)."""
THUMBNAIL = (128, 72)
"""The size frames are compared at: `text_change` reads it, `frame_change` its 2x2 means."""
TEXT_CHANGED = 0.0016
"""A frame whose grayscale thumbnail changed on this share of its pixels (`text_change`)
shows other text: fitted by `python -m tests.eval.slide_changes` on the mixed-media set
(the geometric middle between the largest change between two slides, under one pixel of
the 9216, and the smallest change of text on one template, 0.023). Scaled with the colour
threshold a caller passes (`text_threshold`), so a higher threshold finds fewer cuts of
both kinds."""
DEFAULT_THRESHOLD = 0.02
"""The colour threshold TEXT_CHANGED goes with (MEDIA_SCENE_THRESHOLD's default)."""


def frame_change(difference: Any) -> float:
    """How much a frame differs from the one before (0-1), from the absolute difference
    of their thumbnails: the mean colour change, or a quarter of the share of pixels that
    changed visibly, whichever is larger. The second catches a cut between two images of
    similar mean colour (one dark slide to another), which the mean alone scores low."""
    import numpy as np

    mean = float(difference.mean()) / 255.0
    # the largest channel change per pixel (np.maximum of the three planes: a reduction
    # over a last axis of 3 costs several times as much)
    largest = np.maximum(np.maximum(difference[..., 0], difference[..., 1]), difference[..., 2])
    changed = float((largest > PIXEL_CHANGED).mean())
    return max(mean, changed / 4)


def text_change(previous: Any, current: Any) -> float:
    """The share of pixels (0-1) whose brightness changed visibly between two RGB thumbnails
    (int16 arrays): a changed line of text moves it at a size where the colour change
    (`frame_change`) averages the line away."""
    import numpy as np

    luma = np.array([0.299, 0.587, 0.114], dtype=np.float32)
    difference = np.abs((current - previous).astype(np.float32) @ luma)
    return float((difference > PIXEL_CHANGED).mean())


def picture_change(previous: Any, current: Any) -> tuple[float, float]:
    """(colour change, text change) between two THUMBNAIL-sized RGB int16 arrays."""

    def colour(pixels: Any) -> Any:
        # 2x2 sums: 4x what swscale's area scaling straight to 64x36 gives, to the rounding
        # (strided adds: numpy's mean over reshaped axes costs 20x as much)
        return pixels[0::2, 0::2] + pixels[1::2, 0::2] + pixels[0::2, 1::2] + pixels[1::2, 1::2]

    import numpy as np

    return (
        frame_change(np.abs(colour(current) - colour(previous)) / 4),
        text_change(previous, current),
    )


def text_threshold(threshold: float) -> float:
    """The text change that opens a scene beside a colour `threshold`."""
    return TEXT_CHANGED * threshold / DEFAULT_THRESHOLD


def detect_scenes(
    path: str,
    limits: MediaLimits,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    start: float = 0.0,
    end: float | None = None,
    min_scene_seconds: float = MIN_SCENE_SECONDS,
    tick: Tick = no_tick,
) -> ScenesFound:
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
        recent: list[tuple[float, float]] = []
        last_time = start
        compared = 0
        limit = (threshold, text_threshold(threshold))
        for moment, pixels in walk(
            container,
            info,
            limits,
            start=start,
            end=end,
            size=THUMBNAIL,
            sample_fps=SAMPLE_FPS,
            tick=tick,
        ):
            current = pixels.astype(np.int16)
            if previous is not None:
                change = picture_change(previous, current)
                compared += 1
                opened = cuts[-1][0] if cuts else start
                # each measure against its own threshold and its own recent background
                stands_out = any(
                    value >= least
                    and value >= ADAPTIVE_RATIO * sum(r[n] for r in recent) / max(len(recent), 1)
                    for n, (value, least) in enumerate(zip(change, limit, strict=True))
                )
                if stands_out and moment - opened >= min_scene_seconds:
                    cuts.append((round(moment, 3), round(max(change), 4)))
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
