"""Frames of a local video as encoded images: at given times, N evenly spaced in a range,
or one per scene; bounded in pixels (longest edge), count and total bytes.

`extract_frames` is the plain entry point (path and plain values in, plain data out).
Images are encoded with Pillow: JPEG by default (a 1280x720 frame is ~100 KB, PNG ~1 MB),
PNG on request for text-heavy frames where JPEG's ringing hurts.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from video_research.media.decode import Tick, frames_at, no_tick
from video_research.media.limits import MediaLimits, check_range, clock
from video_research.media.probe import describe, open_container, require_video
from video_research.media.scenes import detect_scenes
from video_research.support.errors import invalid_input

if TYPE_CHECKING:
    from video_research.media.probe import MediaInfo
    from video_research.support.schema_types.common.media import Image, OmittedItem

ImageFormat = Literal["jpeg", "png"]
MIME = {"jpeg": "image/jpeg", "png": "image/png"}


class FramesFound(TypedDict):
    duration_seconds: float
    frames: list[EncodedFrame]
    omitted: list[OmittedItem]
    media: MediaInfo


@dataclass
class EncodedFrame:
    time: float
    requested: float
    width: int
    height: int
    mime_type: str
    data: bytes

    def describe(self, link: str, content_index: int) -> Image:
        """The frame as results describe it: `link` opens the media at its time (the
        handler's to write), `content_index` is its place among the call's content."""
        return {
            "time": self.time,
            "requested_time": round(self.requested, 3),
            "label": clock(self.time),
            "width": self.width,
            "height": self.height,
            "mime_type": self.mime_type,
            "bytes": len(self.data),
            "link": link,
            "content_index": content_index,
        }


def encode(image: Any, image_format: ImageFormat, quality: int = 80) -> bytes:
    buffer = io.BytesIO()
    if image_format == "png":
        image.save(buffer, format="PNG", optimize=False, compress_level=6)
    else:
        image.save(buffer, format="JPEG", quality=quality, optimize=True)
    return buffer.getvalue()


def spaced_times(start: float, end: float, count: int) -> list[float]:
    """`count` times evenly spread over [start, end): the middle of each of `count` parts
    (never the very first frame, often black, nor a time past the end)."""
    step = (end - start) / count
    return [round(start + step * (n + 0.5), 3) for n in range(count)]


def extract_frames(
    path: str,
    limits: MediaLimits,
    *,
    times: list[float] | None = None,
    count: int | None = None,
    per_scene: bool = False,
    start: float = 0.0,
    end: float | None = None,
    max_edge: int | None = None,
    image_format: ImageFormat = "jpeg",
    scene_threshold: float = 0.02,
    tick: Tick = no_tick,
) -> FramesFound:
    """Frames of `path`: exactly one of `times`, `count`, `per_scene`.

    Returns {"duration_seconds", "frames": [EncodedFrame], "omitted": [{time, reason}]}.
    At most `limits.max_frames` frames, together at most `limits.max_output_bytes`; the
    frames past either limit, and times a damaged file has no frame for ("unreadable"), are
    listed in "omitted", never silently dropped.
    """
    edge = min(max_edge or limits.max_frame_edge, limits.max_frame_edge)
    with open_container(path, limits) as container:
        info = describe(container, path, limits)
        require_video(info, path)
        duration = info.duration_seconds
        if per_scene:
            low, high = check_range(start, end, duration)
            found = detect_scenes(
                path, limits, threshold=scene_threshold, start=low, end=high, tick=tick
            )
            wanted = [scene["keyframe_time"] for scene in found["scenes"]]
        elif count is not None:
            low, high = check_range(start, end, duration)
            wanted = spaced_times(low, high, count)
        else:
            wanted = sorted({round(t, 3) for t in times or []})
            late = [t for t in wanted if duration > 0 and t > duration]
            if late:
                raise invalid_input(
                    f"Time {late[0]:g} s is past the end of the media ({duration:g} s).",
                    hint="Give times within the media's duration (see media_scenes or "
                    "duration_seconds).",
                )
        omitted: list[OmittedItem] = [
            {"time": t, "reason": "max_frames"} for t in wanted[limits.max_frames :]
        ]
        wanted = wanted[: limits.max_frames]
        pictures = frames_at(container, info, wanted, limits, max_edge=edge, tick=tick)
    got = {picture.requested for picture in pictures}
    omitted.extend({"time": t, "reason": "unreadable"} for t in wanted if t not in got)
    frames: list[EncodedFrame] = []
    total = 0
    for picture in pictures:
        data = encode(picture.image, image_format)
        if total + len(data) > limits.max_output_bytes:
            omitted.append({"time": picture.requested, "reason": "max_output_bytes"})
            continue
        total += len(data)
        frames.append(
            EncodedFrame(
                time=picture.time,
                requested=picture.requested,
                width=picture.image.width,
                height=picture.image.height,
                mime_type=MIME[image_format],
                data=data,
            )
        )
    return {"duration_seconds": duration, "frames": frames, "omitted": omitted, "media": info}
