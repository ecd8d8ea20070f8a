"""Injection flags: recall on a public set of prompt injections, false flags on real speech.

    python -m tests.eval.injections          # measure (make eval-injections)
    python -m tests.eval.injections --fit    # fit the weights, write injection_weights.json

The injections: deepset/prompt-injections (662 English and German prompts, 263 of them
injections, in its own train and test splits), read from a local JSONL file of
{"text", "label", "split"} lines (INJECTION_SET, default
~/.cache/video-research/injection-sets/deepset/prompt-injections.jsonl; the parquet
files of github.com/sinanw/llm-security-prompt-injection `data/raw/`, one JSON line per
row). It never enters the repository.

The speech: every moment (the indexer's chunks, `chunk_cues`) of the real transcripts in
shared/data/transcripts (FIT_TRANSCRIPTS) and of the large eval corpus
(EVAL_CORPUS/transcripts, `make eval-corpus`). No one in them addresses an agent, so
every flag there is a false flag.

The fit sees only the set's train split and the shared transcripts; recall is reported
on the test split apart, false flags on the large corpus (which the fit never sees).
Weights: each cue's smoothed log-odds of appearing in an injection rather than in
benign text, at least 0; threshold: the lowest score whose false flags on the fit's
moments stay at or under TARGET_FALSE_FLAGS / 2 (a margin for unseen speech).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from tests.helpers import shared_data
from video_research.support import injection
from video_research.support.injection_cues import CUES

INJECTION_SET = Path(
    os.environ.get(
        "INJECTION_SET",
        Path.home() / ".cache/video-research/injection-sets/deepset/prompt-injections.jsonl",
    )
)
_SHARED = shared_data()
FIT_TRANSCRIPTS = Path(
    os.environ.get("FIT_TRANSCRIPTS")
    or (_SHARED / "transcripts" if _SHARED else Path("shared/data/transcripts"))
)
EVAL_CORPUS = Path(
    os.environ.get("VIDEO_RESEARCH_EVAL_CORPUS", Path.home() / ".cache/video-research/eval-corpus")
)
TARGET_RECALL = 0.9
TARGET_FALSE_FLAGS = 0.005
WINDOW = 240
SMOOTHING = 0.5


def load_set(path: Path) -> list[dict]:
    if not path.exists():
        sys.exit(f"no injection set at {path}; see the docstring of tests/eval/injections.py")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def moments(folder: Path) -> list[str]:
    """The text of every moment the indexer would store for the transcripts in `folder`."""
    from video_research.transcripts.chunker import chunk_cues
    from video_research.transcripts.parsers import SUPPORTED_SUFFIXES, parse_file

    texts: list[str] = []
    for file in sorted(folder.rglob("*")):
        if file.suffix.lower() not in SUPPORTED_SUFFIXES or file.name.lower() == "readme.md":
            continue
        try:
            parsed = parse_file(file)
        except Exception:
            continue
        chunks, _ = chunk_cues(parsed.cues)
        texts.extend(chunk.text for chunk in chunks)
    return texts


def cue_sets(texts: list[str]) -> list[list[set[str]]]:
    """For each text, the cue ids of each run of nearby cues."""
    return [
        [{c.id for _, _, c in run} for run in injection.groups(injection.matches(t), WINDOW)]
        for t in texts
    ]


def best(runs: list[set[str]], weights: dict[str, float]) -> float:
    return max((sum(weights.get(c, 0.0) for c in run) for run in runs), default=0.0)


def fit(positives: list[str], negatives: list[str], speech: list[str]) -> dict:
    pos, neg, talk = cue_sets(positives), cue_sets(negatives), cue_sets(speech)

    def count(rows: list[list[set[str]]], cue: str) -> int:
        return sum(any(cue in run for run in runs) for runs in rows)

    benign = len(neg) + len(talk)
    weights: dict[str, float] = {}
    unseen: list[str] = []
    for cue in CUES:
        seen = count(pos, cue.id)
        n = (count(neg, cue.id) + count(talk, cue.id) + SMOOTHING) / (benign + 2 * SMOOTHING)
        p = (seen + SMOOTHING) / (len(pos) + 2 * SMOOTHING)
        weights[cue.id] = round(max(0.0, math.log(p / n)), 3)
        if seen == 0:
            unseen.append(cue.id)
    speech_scores = sorted(best(runs, weights) for runs in talk)
    allowed = int(len(speech_scores) * TARGET_FALSE_FLAGS / 2)
    # the lowest threshold with at most `allowed` moments at or above it
    above = speech_scores[len(speech_scores) - allowed - 1] if speech_scores else 0.0
    threshold = round(above + 1e-3, 3)
    # A cue the set has no injection for (its languages are English and German; it asks
    # for no tool calls and no files) borrows: the weight of the same cue in a language
    # the set has, or else the threshold itself while it fires on no fit moment (alone
    # it flags, as a phrase never said in speech should), or else its own log-odds.
    by_name: dict[str, float] = {}
    for cue in CUES:
        if cue.id not in unseen:
            name = cue.id.split(".", 1)[1]
            by_name[name] = max(by_name.get(name, 0.0), weights[cue.id])
    for cue_id in unseen:
        name = cue_id.split(".", 1)[1]
        if name in by_name:
            weights[cue_id] = by_name[name]
        elif count(talk, cue_id) == 0:
            weights[cue_id] = threshold
    return {
        "command": "python -m tests.eval.injections --fit",
        "window": WINDOW,
        "threshold": threshold,
        "weights": weights,
        "fitted_on": {
            "injections": len(positives),
            "benign_prompts": len(negatives),
            "moments": len(speech),
        },
    }


def rate(texts: list[str], fitted: injection.Model) -> tuple[int, int]:
    return sum(bool(injection.spans(t, fitted)) for t in texts), len(texts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="refit and write the weights file")
    parser.add_argument("--misses", type=int, default=0, help="print this many missed injections")
    args = parser.parse_args(argv)
    rows = load_set(INJECTION_SET)
    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == "test"]
    if not FIT_TRANSCRIPTS.is_dir():
        sys.exit(f"no transcripts at {FIT_TRANSCRIPTS}; set FIT_TRANSCRIPTS")
    fit_speech = moments(FIT_TRANSCRIPTS)
    if args.fit:
        fitted = fit(
            [r["text"] for r in train if r["label"] == 1],
            [r["text"] for r in train if r["label"] == 0],
            fit_speech,
        )
        injection.WEIGHTS_FILE.write_text(json.dumps(fitted, indent=2) + "\n", encoding="utf-8")
        injection.model.cache_clear()
        print(f"wrote {injection.WEIGHTS_FILE} (threshold {fitted['threshold']})")
    fitted_model = injection.model()
    report = {}
    for name, part in (("train (fitted on)", train), ("test (held out)", test)):
        hits, total = rate([r["text"] for r in part if r["label"] == 1], fitted_model)
        fp, benign = rate([r["text"] for r in part if r["label"] == 0], fitted_model)
        report[f"deepset {name}"] = {
            "recall": round(hits / total, 3),
            "injections": total,
            "benign_prompts_flagged": f"{fp}/{benign}",
        }
    flags, total = rate(fit_speech, fitted_model)
    report["shared transcripts (fitted on)"] = {
        "false_flags": round(flags / max(total, 1), 4),
        "moments": total,
    }
    large = EVAL_CORPUS / "transcripts"
    if large.exists():
        large_speech = moments(large)
        flags, total = rate(large_speech, fitted_model)
        report["large eval corpus (held out)"] = {
            "false_flags": round(flags / max(total, 1), 4),
            "flagged": flags,
            "moments": total,
        }
        if args.misses:
            for text in [t for t in large_speech if injection.spans(t, fitted_model)][
                : args.misses
            ]:
                print("FALSE FLAG:", text[:200].replace("\n", " "))
    else:
        report["large eval corpus (held out)"] = f"absent ({large}); run make eval-corpus"
    if args.misses:
        missed = [
            r["text"]
            for r in rows
            if r["label"] == 1 and not injection.spans(r["text"], fitted_model)
        ]
        for text in missed[: args.misses]:
            print("MISSED:", text[:160].replace("\n", " "))
    report["targets"] = {"recall": TARGET_RECALL, "false_flags": TARGET_FALSE_FLAGS}
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
