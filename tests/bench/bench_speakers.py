"""The speaker pass beside the speech pass it rides on, on the same file, idle and beside
a CPU hog (bench_media_busy's): the seconds `label_speakers` takes (voice activity,
embeddings, clustering, labelling the sentences) against the seconds `transcribe_file`
takes without it, each figure with its same-run baseline. Target: the speaker pass
within x0.2 of the speech pass.

The recording is made as the eval's are (tests/eval/speaker_recordings.py): three
espeak-ng voices, BENCH_SPEAKERS_TURNS turns (default 24) of 5-20 s, about five minutes.
Needs espeak-ng, sox and ffmpeg.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from tests.bench.bench_media_busy import Hog, load
from tests.bench.common import header, report
from tests.eval.speaker_recordings import make

TURNS = int(os.environ.get("BENCH_SPEAKERS_TURNS", "24"))
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "media" / "speakers.ogg"
TARGET_RATIO = 0.2


def _passes(path: Path) -> tuple[float, float]:
    """(speech pass seconds, speaker pass seconds) on `path`, models loaded before."""
    from video_research.media import speakers, speech
    from video_research.media.speakers import diarize

    started = time.perf_counter()
    result = speech.transcribe_file(str(path), speakers=False)
    spoken = time.perf_counter() - started
    audio = speech.decode_audio(str(path), 4 * 3600)
    started = time.perf_counter()
    labelled, said = speakers.label_speakers(audio, result["segments"], path.name)
    labelling = time.perf_counter() - started
    assert "speaker_note" not in said, said
    print(
        f"   {len(labelled)} sentences, {said.get('speaker_count')} speakers found (3 made); "
        f"{len(diarize.fitted())} fitted parameters",
        flush=True,
    )
    return spoken, labelling


def main() -> None:
    from video_research.media import speech
    from video_research.media.speakers import diarize

    with tempfile.TemporaryDirectory(prefix="bench-speakers-") as work:
        path = Path(work) / "panel.ogg"
        made = make(
            path, seed=42, speakers=3, turns=TURNS, turn_seconds=(5.0, 20.0), work=Path(work)
        )
        seconds = made.turns[-1][1]
        header(f"speaker pass beside the speech pass: {seconds:.0f} s, 3 voices, {TURNS} turns")
        speech.load_model(speech.BUNDLED_MODEL, 0, "")
        diarize.models()
        _passes(FIXTURE)  # warm: imports, first calls
        for label, hog in (("idle", None), ("beside the hog", Hog)):
            if hog is None:
                spoken, labelling = _passes(path)
            else:
                with hog():
                    spoken, labelling = _passes(path)
            print(f"   ({label}: {load()})", flush=True)
            ratio = report(
                f"speaker pass ({label})",
                labelling,
                "s",
                f"speech pass ({label})",
                spoken,
                higher_is_better=False,
            )
            verdict = "meets" if ratio <= TARGET_RATIO else "misses"
            print(f"   {verdict} the target x{TARGET_RATIO}", flush=True)
