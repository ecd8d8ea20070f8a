"""Decoding pictures with PyAV: frames at given times, and every frame in a range.

Both walk the packets themselves so that each packet passes the deadline and the
`tick` callback (progress and cancellation: the callback may raise to stop the walk), and
every decoded frame is checked against the pixel limit before it is converted (a stream
may change its frame size midway).

Scaling happens in FFmpeg's swscale (`reformat`), straight from the decoder's YUV to the
small RGB picture wanted: no full-size RGB copy of a large frame is ever made. One
`VideoReformatter` serves a whole walk: `VideoFrame.reformat` makes a new one per frame,
and setting up swscale's area filter each time cost four times the scaling itself (a
720p frame to 64x36: 1.1 ms against 0.2 ms, the same pixels).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from video_research.media.coverage import media_origin
from video_research.media.limits import Deadline, MediaLimits
from video_research.media.probe import MediaInfo, check_pixels

Tick = Callable[[float], None]
"""Called with the media time reached (seconds) as decoding goes; raising stops it."""

SEEK_GAP_SECONDS = 3.0
"""Decode on rather than seek when the next time is this close after the last frame:
a seek lands on a keyframe and decodes forward anyway."""


def no_tick(_: float) -> None:
    return None


@dataclass
class Picture:
    """One decoded frame, scaled: `time` is the frame's own presentation time."""

    requested: float
    time: float
    image: Any  # PIL.Image.Image, RGB


def scaled_size(width: int, height: int, max_edge: int) -> tuple[int, int]:
    """(width, height) scaled so that the longest edge is at most `max_edge`, even sizes."""
    scale = min(1.0, max_edge / max(width, height))
    return max(2, int(width * scale) // 2 * 2), max(2, int(height * scale) // 2 * 2)


def _reformatter() -> Any:
    """A scaler kept for a whole walk (swscale's context is cached in it between frames
    of the same size and format)."""
    from av.video.reformatter import VideoReformatter

    return VideoReformatter()


def _stream(container: Any, info: MediaInfo) -> Any:
    assert info.video is not None
    stream = container.streams[info.video["index"]]
    stream.thread_type = "AUTO"
    return stream


MAX_BAD_PACKETS = 50
"""Packets that fail to decode before the file is given up on (a few in a damaged file
are skipped, as players do)."""


def _frames(
    container: Any, stream: Any, deadline: Deadline, limits: MediaLimits, shown: str
) -> Iterator[Any]:
    import av

    bad = 0
    packets = container.demux(stream)
    while True:
        try:
            packet = next(packets)
        except StopIteration:
            return  # a truncated file ends here; the frames decoded so far stand
        except av.FFmpegError as exc:
            raise _undecodable(shown, exc) from None
        deadline.check()
        try:
            frames = packet.decode()
        except av.FFmpegError as exc:
            bad += 1
            if bad > MAX_BAD_PACKETS:
                raise _undecodable(shown, exc) from None
            continue
        for frame in frames:
            check_pixels(frame.width, frame.height, limits, shown)
            if frame.time is not None:
                yield frame


def _seek(container: Any, stream: Any, seconds: float, shown: str) -> None:
    import av

    try:
        container.seek(int(seconds / stream.time_base), stream=stream, backward=True)
    except av.FFmpegError as exc:
        raise _undecodable(shown, exc) from None


def _undecodable(shown: str, exc: Exception) -> Exception:
    from video_research.media.limits import unsupported

    reason = getattr(exc, "strerror", None) or str(exc)
    return unsupported(
        f"{shown} could not be decoded: {str(reason).strip().rstrip('.')}.",
        "The file is damaged or not what its name says; check that it plays in a media player.",
    )


def frames_at(
    container: Any,
    info: MediaInfo,
    times: list[float],
    limits: MediaLimits,
    *,
    max_edge: int,
    tick: Tick = no_tick,
) -> list[Picture]:
    """The frame shown at each of `times` (the last one before it), scaled to `max_edge`.

    Times past the end give the last frame. Times are visited in order; a seek is made
    only when the next time is far ahead (or behind).
    """
    return list(iter_frames_at(container, info, times, limits, max_edge=max_edge, tick=tick))


def iter_frames_at(
    container: Any,
    info: MediaInfo,
    times: list[float],
    limits: MediaLimits,
    *,
    max_edge: int,
    tick: Tick = no_tick,
    deadline: Deadline | None = None,
) -> Iterator[Picture]:
    """`frames_at` one picture at a time, for callers that must not hold them all (and
    may `extend` the `deadline` by the time they spend between pictures)."""
    deadline = deadline or Deadline(limits.decode_seconds, info.path)
    stream = _stream(container, info)
    assert info.video is not None
    width, height = scaled_size(info.video["width"], info.video["height"], max_edge)
    half_frame = 0.5 / (info.video.get("fps") or 25.0)
    start = media_origin(container)  # the clock speech and every other tool count from
    decoder: Iterator[Any] | None = None
    last: Any = None
    reformatter = _reformatter()
    for target in sorted(times):
        behind = last is not None and target < last.time - start
        far = last is not None and target - (last.time - start) > SEEK_GAP_SECONDS
        if decoder is None or last is None or behind or far:
            _seek(container, stream, target + start, info.path)
            decoder = _frames(container, stream, deadline, limits, info.path)
            last = None
        chosen = None
        for frame in decoder:
            tick(frame.time - start)
            if frame.time - start >= target - half_frame:
                chosen = (
                    frame if last is None or frame.time - start <= target + half_frame else last
                )
                last = frame
                break
            last = frame
        if chosen is None:
            chosen = last
        if chosen is None:
            continue
        image = reformatter.reformat(
            chosen, width=width, height=height, format="rgb24", interpolation="AREA"
        ).to_image()
        yield Picture(requested=target, time=round(chosen.time - start, 3), image=image)


def walk(
    container: Any,
    info: MediaInfo,
    limits: MediaLimits,
    *,
    start: float = 0.0,
    end: float | None = None,
    size: tuple[int, int] = (64, 36),
    sample_fps: float | None = None,
    tick: Tick = no_tick,
) -> Iterator[tuple[float, Any]]:
    """(time, small RGB array) for the frames from `start` to `end`: what scene detection
    compares. The frames are scaled by swscale straight to `size`. With `sample_fps`, at
    most that many a second are scaled and returned: every frame is still decoded (the
    codec needs them), but scaling and copying each one in Python cost more than decoding
    (a 10-minute 25 fps video: 29 s for all 15,000 frames against FFmpeg's 6 s)."""
    deadline = Deadline(limits.decode_seconds, info.path)
    stream = _stream(container, info)
    # thumbnails do not show deblocking: skipping the loop filter decodes ~25% faster
    stream.codec_context.options = {"skip_loop_filter": "all"}
    offset = media_origin(container)
    if start > 0:
        _seek(container, stream, start + offset, info.path)
    width, height = size
    spacing = 1.0 / sample_fps if sample_fps else 0.0
    last = float("-inf")
    reformatter = _reformatter()
    for frame in _frames(container, stream, deadline, limits, info.path):
        moment = frame.time - offset
        if moment < start - 1e-6:
            continue
        if end is not None and moment > end:
            break
        tick(moment)
        if moment - last < spacing - 1e-6:
            continue
        last = moment
        # one thread: a thumbnail has too few lines to share out, and slice threads that
        # wake each other per frame lose their turn to every other process on a busy host
        small = reformatter.reformat(
            frame, width=width, height=height, format="rgb24", interpolation="AREA", threads=1
        )
        yield moment, small.to_ndarray()
