"""How far `index_media_files` got with one item, per item and overall.

Each item (a local file or a URL) takes an equal step of the call's progress; its stages
(probe, scenes, screen text, speech, indexing, download) fill that step by their rough
share of the work, each reported as it starts and at least every few seconds while it
runs, as "<name> (<n>/<total>) <stage>: <what>".
"""

from __future__ import annotations

from video_research.support.progress import Stages

STAGE_WEIGHTS = {
    "download": 8.0,
    "probe": 1.0,
    "speech": 30.0,
    "index speech": 3.0,
    "scenes": 4.0,
    "screen text": 12.0,
    "index screen text": 1.0,
}
"""Share of an item's step of the overall progress each stage takes (roughly its time on
a video with speech and slides); an item's stages fill its step between them."""


class ItemProgress:
    """The progress of one item, per item and overall: the items done plus how far this
    one got through its stages (`plan`), each stage reported as it starts and at least
    every few seconds while it runs, as "<name> (<n>/<total>) <stage>: <what>"."""

    def __init__(
        self, stages: Stages, done: int, total: int, name: str, plan: tuple[str, ...]
    ) -> None:
        self.stages, self.done, self.total, self.name = stages, done, total, name
        weights = [STAGE_WEIGHTS[stage] for stage in plan]
        whole, passed = sum(weights), 0.0
        self.spans: dict[str, tuple[float, float]] = {}
        for stage, weight in zip(plan, weights, strict=True):
            self.spans[stage] = (passed / whole, (passed + weight) / whole)
            passed += weight
        self.current = ""
        self.duration: float | None = None
        """The media's length once probed (seconds), for the stages' percentages."""

    def _label(self, what: str) -> str:
        return f"{self.name} ({self.done + 1}/{self.total}) {self.current}: {what}"

    async def stage(self, stage: str, what: str) -> None:
        """Begin `stage` (one of the plan's), saying `what`; the current one again: only
        what it says changes."""
        if stage == self.current:
            self.stages.update(0.0, self._label(what))
            return
        if stage not in self.spans:
            return
        self.current = stage
        low, high = self.spans[stage]
        # never the item's bare start: `done` itself was the previous item's end
        await self.stages.stage(
            self.done + max(low, 0.001), self.done + min(high, 0.999), self._label(what)
        )

    def media(self, seconds: float, done: str, duration: float | None = None) -> None:
        """The stage reached `seconds` of the media's `duration` (by default the probed
        length; unknown: no percentage), which it has `done` ("transcribed")."""
        duration = duration or self.duration
        if duration:
            fraction = min(seconds / duration, 1.0)
            said = f"{fraction:.0%} of {clock(duration)} {done}"
        else:
            fraction, said = 0.0, f"{clock(seconds)} {done}"
        self.stages.update(fraction, self._label(said))


def clock(seconds: float) -> str:
    """`seconds` as the media clock people read: 1:02:03, or 2:03 under an hour."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
