"""Who spoke when, offline: silero-vad finds the speech, resemblyzer's GE2E encoder
embeds it, and the windows are clustered into speakers (`diarize`). The weights come from
the two packages' wheels, installed without their torch dependency and read without it
(`weights`); nothing is downloaded. Without the packages the pass is off and says so.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

LABEL = "speakers/silero-vad-6.2.3+resemblyzer-0.1.4"
"""Recorded in a transcript's settings hash: files indexed before the pass re-index."""


def available() -> bool:
    """Whether both packages holding the weights are installed."""
    from video_research.media.speakers import weights

    return not weights.missing()


def label_speakers(
    audio: Any, segments: list[dict[str, Any]], name: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The segments with their `speaker`, and what to report: {"speaker_count"} or
    {"speaker_note"} (the pass never fails the transcription)."""
    from video_research.media.speakers import diarize, weights

    gone = weights.missing()
    if gone:
        note = (
            f"{name}: speakers not labelled: {' and '.join(gone)} not installed. "
            + weights.INSTALL_HINT
        )
        return segments, {"speaker_note": note}
    try:
        found = diarize.turns(audio)
    except weights.WeightsError as exc:
        return segments, {
            "speaker_note": f"{name}: speakers not labelled: {exc.message} {exc.hint}"
        }
    if not found:
        return segments, {"speaker_count": 0}
    labelled = diarize.label_sentences(segments, found)
    return labelled, {"speaker_count": len({s["speaker"] for s in labelled})}
