"""How much of a media file is there: what its streams hold against what its header claims.

An interrupted download leaves a file that opens and says how long it is (an MP4 with its
index at the front, a Matroska file with its duration at the front) but holds only the
first part: decoding simply ends early, as it ends at the end of a whole file. Every media
tool and `index_media_files` measure the file here, so that what was read of a file cut
short is reported as partial, with where it ends, instead of passing for the whole.

Only packets are read (demuxed), never decoded. A whole file is recognised cheaply: each
stream is sought to just before its claimed end and its last packets read; only when the
end is not there is the file read from the start to find where it stops (a cut file is
short, so that read is too).

The one duration every tool reports for a file (`duration`): the container's, else the
longest stream's; a transcript without media falls back to its last cue (the indexer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from video_research.support.schema_types.common import media as contract

TOLERANCE_SECONDS = 0.5
"""A stream that ends this close to its claimed end is whole (packet times are rounded,
an audio codec's priming and padding move its end by a few milliseconds)."""
TOLERANCE_SHARE = 0.01
"""... or within this share of its claimed length, whichever is larger."""
SEEK_BACK_SECONDS = 5.0
"""How far before a stream's claimed end the quick check starts reading."""


@dataclass
class StreamCoverage:
    """One stream: the seconds its packets reach (from second zero of the media) and the
    seconds it claims (None when its header does not say)."""

    kind: str
    index: int
    seconds_read: float
    seconds_claimed: float | None
    complete: bool


@dataclass
class Coverage:
    """What was read of a file against what it claims. `note` says it for the agent when
    the file is partial (None when whole)."""

    complete: bool
    seconds_read: float
    seconds_claimed: float
    note: str | None = None
    streams: list[StreamCoverage] = field(default_factory=list)

    def to_dict(self) -> contract.Coverage:
        """As every media result reports it (its fields in order, as `asdict` gives them)."""
        return {
            "complete": self.complete,
            "seconds_read": self.seconds_read,
            "seconds_claimed": self.seconds_claimed,
            "note": self.note,
            "streams": [
                {
                    "kind": stream.kind,
                    "index": stream.index,
                    "seconds_read": stream.seconds_read,
                    "seconds_claimed": stream.seconds_claimed,
                    "complete": stream.complete,
                }
                for stream in self.streams
            ],
        }

    def fields(self) -> dict[str, Any]:
        """The flat fields a result or an index record carries."""
        return {
            "complete": self.complete,
            "seconds_read": self.seconds_read,
            "seconds_claimed": self.seconds_claimed,
        }


def duration(container: Any) -> float:
    """The file's duration, the one every tool reports: the container's, else its longest
    stream's (0.0 when neither says)."""
    if container.duration and container.duration > 0:
        return container.duration / 1_000_000
    best = 0.0
    for stream in container.streams:
        if stream.duration and stream.time_base:
            best = max(best, float(stream.duration * stream.time_base))
    return best


def media_origin(container: Any) -> float:
    """Second zero of the media's timeline: the container's start time, the earliest of its
    streams' (what players count from). Every time the media tools report is measured from
    it, so speech, frames, scenes and screen text agree on one clock."""
    start = container.start_time
    return start / 1_000_000 if start is not None else 0.0


def clock(seconds: float) -> str:
    """m:ss (h:mm:ss past an hour), as a player shows a time."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _whole(read: float, claimed: float) -> bool:
    return read >= claimed - max(TOLERANCE_SECONDS, TOLERANCE_SHARE * claimed)


def _checked_streams(container: Any) -> list[Any]:
    """The streams the tools read: the first video that is not cover art, the first audio."""
    import av

    chosen = []
    for stream in container.streams.video:
        if not stream.disposition & av.stream.Disposition.attached_pic:
            chosen.append(stream)
            break
    if container.streams.audio:
        chosen.append(container.streams.audio[0])
    return chosen


def _claimed_end(stream: Any, origin: float) -> float | None:
    if not stream.duration or not stream.time_base:
        return None
    start = stream.start_time or 0
    return float((start + stream.duration) * stream.time_base) - origin


def _ends(container: Any, streams: list[Any], origin: float) -> dict[int, float]:
    """The end (seconds from the origin) of the last packet read of each stream, demuxing
    from where the container stands to the end of what can be read."""
    import av

    ends: dict[int, float] = {}
    try:
        for packet in container.demux(*streams):
            stamp = packet.pts if packet.pts is not None else packet.dts
            if stamp is None or packet.size == 0:
                continue
            end = float((stamp + (packet.duration or 0)) * packet.time_base) - origin
            index = packet.stream.index
            ends[index] = max(ends.get(index, 0.0), end)
    except (av.FFmpegError, OSError):
        pass  # a damaged or cut tail: what was read before it is what there is
    return ends


def _quick_ends(
    container: Any, streams: list[Any], claims: dict[int, float | None], origin: float
) -> dict[int, float] | None:
    """Each stream's end read just before its claimed end, or None when a seek fails."""
    import av

    ends: dict[int, float] = {}
    for stream in streams:
        claimed = claims[stream.index]
        if claimed is None:
            return None
        target = max(0.0, claimed - SEEK_BACK_SECONDS) + origin
        try:
            container.seek(int(target / stream.time_base), stream=stream, backward=True)
        except (av.FFmpegError, OSError):
            return None
        found = _ends(container, [stream], origin)
        if stream.index not in found:
            return None
        ends[stream.index] = found[stream.index]
    return ends


def measure(container: Any) -> Coverage:
    """Compare what `container`'s streams hold with what they claim. Leaves the container
    at an unknown position: measure a container opened for it (`probe.measure_file`)."""
    origin = media_origin(container)
    claimed = duration(container)
    streams = _checked_streams(container)
    claims = {s.index: _claimed_end(s, origin) for s in streams}
    ends = _quick_ends(container, streams, claims, origin)
    if ends is None or not all(_whole(ends[s.index], claims[s.index] or 0.0) for s in streams):
        container.seek(0)
        ends = _ends(container, streams, origin)
    report = []
    for stream in streams:
        read = round(max(ends.get(stream.index, 0.0), 0.0), 3)
        own = claims[stream.index]
        report.append(
            StreamCoverage(
                kind=stream.type,
                index=stream.index,
                seconds_read=read,
                seconds_claimed=round(own, 3) if own is not None else None,
                complete=own is None or _whole(read, own),
            )
        )
    return judge(report, claimed)


def judge(streams: list[StreamCoverage], claimed: float) -> Coverage:
    """Whole when each stream that claims a length holds it and, when none claims one, the
    longest reaches the file's duration. A partial file is read to where it ends."""
    longest = max((s.seconds_read for s in streams), default=0.0)
    if claimed > 0 and not any(s.seconds_claimed is not None for s in streams):
        whole = _whole(longest, claimed)
        for stream in streams:
            stream.complete = whole
    short = [s for s in streams if not s.complete]
    claimed = round(claimed, 3)
    if not short:
        return Coverage(True, claimed, claimed, None, streams)
    read = min(s.seconds_read for s in short)
    if len(short) == len(streams):
        note = (
            f"the file ends at {clock(read)} of {clock(claimed)}: it was probably cut off "
            f"while downloading, so only its first {clock(read)} was read. Download it again "
            "and index it again to read the rest."
        )
    else:
        stopped = short[0]
        of = stopped.seconds_claimed if stopped.seconds_claimed is not None else claimed
        note = (
            f"its {stopped.kind} stops at {clock(stopped.seconds_read)} of {clock(of)} while "
            "the rest goes on: the file is damaged or was cut off; get it again to read the "
            "rest."
        )
    return Coverage(False, round(read, 3), claimed, note, streams)
