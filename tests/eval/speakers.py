"""Speaker turns measured on recordings made for them (tests/eval/speaker_recordings.py):
diarization error rate (tests/eval/der.py) and whether the number of speakers found is
right, per file and overall, for the shipped fitted parameters.

    python -m tests.eval.speakers            # measure (make eval-speakers)
    python -m tests.eval.speakers --fit      # fit the clustering threshold and minimum
                                             # share on a separate set of recordings and
                                             # write video_research/media/speakers/fitted.json

The fitting set and the measured set are made from different seeds. Recordings are
cached in $VIDEO_RESEARCH_EVAL_CACHE/speakers (default /tmp/video-research-eval).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tests.eval import speaker_recordings
from tests.eval.der import der

FITTED = Path(__file__).resolve().parents[2] / "video_research/media/speakers/fitted.json"


def plans(first_seed: int, count: int) -> list[dict]:
    """Varied recordings: 2-4 voices, short and long turns, overlap, music beds, joins."""
    out = []
    for n in range(count):
        seed = first_seed + n
        out.append(
            {
                "seed": seed,
                "speakers": 2 + n % 3,
                "turns": 5 + n % 4,
                "turn_seconds": (3.0, 12.0) if n % 4 else (8.0, 30.0),
                "overlap": n % 3 == 1,
                "bed": n % 4 == 2,
                "joined": n % 5 == 3,
            }
        )
    return out


def recordings(plan: list[dict]) -> list[tuple[dict, np.ndarray, list]]:
    from video_research.media.speech import decode_audio

    cache = Path(os.environ.get("VIDEO_RESEARCH_EVAL_CACHE", "/tmp/video-research-eval"))
    folder = cache / "speakers"
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for item in plan:
        key = "-".join(f"{k}{v}" for k, v in sorted(item.items())).replace(" ", "")
        audio_path = folder / f"{key}.ogg"
        truth_path = folder / f"{key}.json"
        if not truth_path.exists():
            with tempfile.TemporaryDirectory() as work:
                made = speaker_recordings.make(
                    audio_path,
                    work=Path(work),
                    **{**item, "turn_seconds": tuple(item["turn_seconds"])},
                )
            truth_path.write_text(json.dumps(made.turns))
        audio = decode_audio(str(audio_path), 3600)
        out.append((item, audio, json.loads(truth_path.read_text())))
    return out


def embedded(made) -> list:
    """Each recording with its embedded windows and the seconds the whole pass took."""
    from threadpoolctl import threadpool_limits

    from video_research.media.speakers import diarize

    diarize.models()
    out = []
    for item, audio, truth in made:
        began = time.perf_counter()
        with threadpool_limits(1):
            windows = diarize.embed(audio)
            diarize.speakers_of(windows)
        out.append((item, audio, truth, windows, time.perf_counter() - began))
    return out


def measure(made, threshold=None, min_share=None, quiet=False) -> dict:
    from video_research.media.speakers import diarize

    rows = []
    spent = heard = 0.0
    for item, audio, truth, windows, seconds in made:
        found = diarize.speakers_of(windows, threshold, min_share)
        spent += seconds
        heard += audio.size / 16000
        hypothesis = [(t.start, t.end, t.speaker) for t in found]
        count = len({t.speaker for t in found})
        rows.append(
            {
                "seed": item["seed"],
                "speakers": item["speakers"],
                "found": count,
                "der": der([tuple(t) for t in truth], hypothesis),
                "overlap": item["overlap"],
                "bed": item["bed"],
                "joined": item["joined"],
                "seconds": round(audio.size / 16000, 1),
            }
        )
    total_der = float(np.mean([r["der"] for r in rows]))
    right = float(np.mean([r["found"] == r["speakers"] for r in rows]))
    if not quiet:
        print(f"{'seed':>5} {'spk':>3} {'found':>5} {'DER':>6} {'secs':>6}  kind")
        for r in rows:
            kind = ",".join(k for k in ("overlap", "bed", "joined") if r[k]) or "plain"
            print(
                f"{r['seed']:>5} {r['speakers']:>3} {r['found']:>5} {r['der']:>6.3f} "
                f"{r['seconds']:>6}  {kind}"
            )
    return {
        "files": len(rows),
        "mean_der": round(total_der, 4),
        "count_right": round(right, 3),
        "speaker_pass_x_realtime": round(spent / max(heard, 1e-9), 4),
    }


def fit(made) -> dict:
    best = None
    for threshold in np.arange(0.10, 0.60, 0.02):
        for min_share in (0.0, 0.03, 0.05, 0.08, 0.12):
            got = measure(made, float(threshold), min_share, quiet=True)
            score = (got["mean_der"] + 0.1 * (1 - got["count_right"]), -threshold)
            if best is None or score < best[0]:
                best = (score, float(round(threshold, 3)), min_share, got)
            print(f"threshold {threshold:.2f} min_share {min_share}: {got}", file=sys.stderr)
    assert best is not None
    _, threshold, min_share, got = best
    said = {
        "threshold": threshold,
        "min_share": min_share,
        "fitted_by": "python -m tests.eval.speakers --fit",
        "fit_set": got,
    }
    FITTED.write_text(json.dumps(said, indent=2) + "\n")
    return said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--files", type=int, default=20)
    args = parser.parse_args()
    if args.fit:
        print(json.dumps(fit(embedded(recordings(plans(1000, args.files)))), indent=2))
        return
    print(json.dumps(measure(embedded(recordings(plans(1, args.files)))), indent=2))


if __name__ == "__main__":
    main()
