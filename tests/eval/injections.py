"""Injection flags: recall on public sets of prompt injections, false flags on real speech.

    python -m tests.eval.injections          # measure (make eval-injections)
    python -m tests.eval.injections --fit    # fit both readers, write their files

The injections, each read from a local file under ~/.cache/video-research/injection-sets
(none enters the repository):

- fitted on: deepset/prompt-injections (662 English and German prompts, 263 of them
  injections, in its own train and test splits; its test split is measured), a JSONL
  file of {"text", "label", "split"} lines (INJECTION_SET, default
  deepset/prompt-injections.jsonl; the parquet files of
  github.com/sinanw/llm-security-prompt-injection `data/raw/`, one JSON line per row);
- fitted on: the in-the-wild jailbreak prompts of Shen et al. ("Do Anything Now",
  github.com/verazuo/jailbreak_llms `data/prompts/jailbreak_prompts_2023_05_07.csv`,
  666 rows, 653 distinct; copied from the copy in
  github.com/kaif0102/Sentinel-AI-Defense-System- `data/raw/`, whose file holds it twice
  between merge markers: the first copy), JAILBREAK_SET (default
  jailbreak-llms/jailbreak_prompts_2023_05_07.csv); a quarter of them, by a hash of the
  text (`jailbreak_split`), is never fitted on and is what the fit's settings were
  chosen on;
- fitted on: the further sets of tests/eval/injection_sources.py (its docstring says
  where each comes from): the Sentinel set's train and val splits (its test split is
  measured), InjecGuard's validation prompts and WildGuard's benign ones, and Shen et
  al.'s forbidden questions (benign), less every copy of a measured text (Tensor Trust
  above all);
- held out, never fitted on, chosen as the held-out set before any fit: Tensor Trust's
  hijacking and extraction attacks (github.com/HumanCompatibleAI/tensor-trust-data,
  `benchmarks/{hijacking,extraction}-robustness/v1/*_robustness_dataset.jsonl`, the
  `attack` of each row, 927 distinct), TENSOR_TRUST_SET (default tensor-trust/);
- held out, never fitted on: the attack instructions of BIPIA (github.com/microsoft/BIPIA,
  `benchmark/{text,code}_attack_test.json`, 125 of them), BIPIA_SET (default bipia/);
- benign, measured only: NotInject (github.com/leolee99/InjecGuard,
  `datasets/NotInject_{one,two,three}.json`, 339 prompts built around the words
  injections use), NOT_INJECT_SET (default injecguard/).

The speech: every moment (the indexer's chunks, `chunk_cues`) of the real transcripts in
shared/data/transcripts (FIT_TRANSCRIPTS) and of the large eval corpus
(EVAL_CORPUS/transcripts, `make eval-corpus`). No one in them addresses an agent, so
every flag there is a false flag. And speech in the languages the set has injections in
but the corpus has no speech in: 3Blue1Brown's German, Spanish and French captions
(github.com/3b1b/captions, one file a video, community.srt else auto_generated.srt, up
to 80 videos a language, the newest), read from TRANSLATED_SPEECH (default
~/.cache/video-research/injection-sets/3b1b-translations/<language>/<year>-<slug>.srt).
They are split by video: the held-out videos (`large_corpus.held_out` of the video id,
less any also in the shared transcripts; of the file name for the captions) are measured
and never fitted on; of the rest, a quarter of the videos set the thresholds
(calibration) and three quarters are the fit's negatives.

The fit: the cue weights (each cue's smoothed log-odds of appearing in an injection
rather than in benign text, at least 0), their threshold (the lowest that flags at most
CUE_FALSE_FLAGS of the training moments), the classifier (tests/eval/injection_fit.py),
and its threshold: the lowest at which both readers together flag few enough of the
calibration moments that the target holds at CONFIDENCE, and at most
CALIBRATED_FALSE_FLAGS of the captions among them. The report gives each reader alone
too (the ablation), and the time to scan a result of ten moments.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.eval import injection_fit, injection_sources
from tests.eval.large_corpus import held_out
from tests.helpers import shared_data
from video_research.support import injection
from video_research.support import injection_classifier as classifier
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
BIPIA = Path(
    os.environ.get("BIPIA_SET", Path.home() / ".cache/video-research/injection-sets/bipia")
)
TRANSLATIONS = Path(
    os.environ.get(
        "TRANSLATED_SPEECH", Path.home() / ".cache/video-research/injection-sets/3b1b-translations"
    )
)
_SETS = Path.home() / ".cache/video-research/injection-sets"
TENSOR_TRUST = Path(os.environ.get("TENSOR_TRUST_SET", _SETS / "tensor-trust"))
JAILBREAKS = Path(
    os.environ.get("JAILBREAK_SET", _SETS / "jailbreak-llms/jailbreak_prompts_2023_05_07.csv")
)
NOT_INJECT = Path(os.environ.get("NOT_INJECT_SET", _SETS / "injecguard"))
TARGET_RECALL = 0.9
TARGET_FALSE_FLAGS = 0.005
CALIBRATED_FALSE_FLAGS = 0.004
"""Both readers together may flag this share of the translated calibration captions."""
CONFIDENCE = 0.95
"""On all the calibration moments, the false flags allowed are the most whose one-sided
upper bound at this confidence (Clopper-Pearson) is still within TARGET_FALSE_FLAGS: a
few dozen flags among a few thousand moments is a noisy count, and a fixed margin let
the held-out videos run over the target while the calibration videos met it."""
CUE_FALSE_FLAGS = 0.0005
"""The cue phrases alone may flag this share of the training moments."""
WINDOW = 240
SMOOTHING = 0.5


def load_set(path: Path) -> list[dict]:
    if not path.exists():
        sys.exit(f"no injection set at {path}; see the docstring of tests/eval/injections.py")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def moments_by_video(folder: Path, by_language: bool = False) -> dict[str, list[str]]:
    """The text of every moment the indexer would store, per transcript file (one video;
    `by_language`: keyed language/video, a folder per language)."""
    from video_research.transcripts.chunker import chunk_cues
    from video_research.transcripts.parsers import SUPPORTED_SUFFIXES, parse_file

    out: dict[str, list[str]] = {}
    for file in sorted(folder.rglob("*")):
        if file.suffix.lower() not in SUPPORTED_SUFFIXES or file.name.lower() == "readme.md":
            continue
        try:
            parsed = parse_file(file)
        except Exception:
            continue
        chunks, _ = chunk_cues(parsed.cues)
        video = f"{file.parent.name}/{file.stem}" if by_language else file.stem
        out.setdefault(video, []).extend(chunk.text for chunk in chunks)
    return out


@dataclass(frozen=True)
class Parts:
    """The moments, split by video so that nothing measured was fitted on."""

    train: list[str]
    """Negatives the classifier and the cue weights are fitted on."""
    calibrate: list[str]
    """Moments of other videos, never trained on: the thresholds are set on them."""
    calibrate_translated: list[str]
    """The German, Spanish and French captions among them (held to the margin alone)."""
    measure: list[str]
    """The large corpus's held-out videos (large_corpus.held_out), never seen by the fit."""
    every_large: list[str]
    measure_translated: list[str]
    """Held-out videos of the German, Spanish and French captions."""


def split_videos(
    shared: dict[str, list[str]], large: dict[str, list[str]], translated: dict[str, list[str]]
) -> Parts:
    fitted = {v: m for v, m in large.items() if not held_out(v) or v in shared} | shared
    fitted |= {v: m for v, m in translated.items() if not held_out(v.split("/")[-1])}

    def calibrating(video: str) -> bool:
        return int(hashlib.sha256(f"calibrate {video}".encode()).hexdigest(), 16) % 4 == 0

    return Parts(
        train=[t for v, m in fitted.items() if not calibrating(v) for t in m],
        calibrate=[t for v, m in fitted.items() if calibrating(v) for t in m],
        calibrate_translated=[
            t for v, m in fitted.items() if v in translated and calibrating(v) for t in m
        ],
        measure=[t for v, m in large.items() if held_out(v) and v not in shared for t in m],
        every_large=[t for m in large.values() for t in m],
        measure_translated=[
            t for v, m in translated.items() if held_out(v.split("/")[-1]) for t in m
        ],
    )


def load_bipia(split: str) -> list[str]:
    """BIPIA's attack instructions (text and code tasks) for `split`, if present."""
    found = [BIPIA / f"{kind}_attack_{split}.json" for kind in ("text", "code")]
    return [
        attack
        for path in found
        if path.exists()
        for group in json.loads(path.read_text(encoding="utf-8")).values()
        for attack in group
    ]


def load_tensor_trust() -> list[str]:
    """Tensor Trust's hijacking and extraction attacks, each distinct text once; measured
    only, never fitted on (the held-out set chosen before any fit)."""
    found: dict[str, None] = {}
    for name in ("hijacking", "extraction"):
        path = TENSOR_TRUST / f"{name}_robustness_dataset.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                attack = json.loads(line)["attack"].strip() if line else ""
                if attack:
                    found.setdefault(attack)
    return list(found)


def jailbreak_split(text: str) -> str:
    """A quarter of the jailbreak prompts are measured, never fitted on (by a hash of the
    text, so near-copies of one prompt may fall on both sides)."""
    return "test" if int(hashlib.sha256(text.encode()).hexdigest(), 16) % 4 == 0 else "train"


def load_jailbreaks(split: str) -> list[str]:
    """The in-the-wild jailbreak prompts of `split`, each distinct text once, if present."""
    if not JAILBREAKS.exists():
        return []
    with JAILBREAKS.open(encoding="utf-8", newline="") as file:
        prompts = dict.fromkeys(row["prompt"].strip() for row in csv.DictReader(file))
    return [p for p in prompts if p and jailbreak_split(p) == split]


def load_not_inject() -> list[str]:
    """NotInject's benign prompts, each built around words injections use ("ignore",
    "bypass"): what flagging the words alone would cost."""
    return [
        row["prompt"]
        for name in ("one", "two", "three")
        if (NOT_INJECT / f"NotInject_{name}.json").exists()
        for row in json.loads((NOT_INJECT / f"NotInject_{name}.json").read_text(encoding="utf-8"))
    ]


def cue_sets(texts: list[str]) -> list[list[set[str]]]:
    """For each text, the cue ids of each run of nearby cues."""
    return [
        [{c.id for _, _, c in run} for run in injection.groups(injection.matches(t), WINDOW)]
        for t in texts
    ]


def best(runs: list[set[str]], weights: dict[str, float]) -> float:
    return max((sum(weights.get(c, 0.0) for c in run) for run in runs), default=0.0)


def fit_cues(positives: list[str], negatives: list[str], speech: list[str]) -> dict:
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
    allowed = int(len(speech_scores) * CUE_FALSE_FLAGS)
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


def allowed_flags(moments: int) -> int:
    """The most false flags among `moments` whose CONFIDENCE upper bound on the rate is
    within TARGET_FALSE_FLAGS (-1 when not even none would do)."""
    from scipy.stats import beta

    flags = -1
    while beta.ppf(CONFIDENCE, flags + 2, moments - flags - 1) <= TARGET_FALSE_FLAGS:
        flags += 1
    return flags


def calibrated_threshold(fitted: classifier.Classifier, moments: list[str], allowed: int) -> float:
    """The lowest classifier threshold at which both readers together flag at most
    `allowed` of `moments`."""
    by_cues = np.array([bool(injection.cue_spans(t)) for t in moments])
    scores = np.array([classifier.text_score(t, fitted) for t in moments])
    allowed -= int(by_cues.sum())
    free = np.sort(scores[~by_cues])[::-1]
    return float(free[max(allowed, 0)]) + 1e-6 if len(free) > max(allowed, 0) else 0.0


def measured_texts(test: list[dict]) -> list[str]:
    """Every text a figure is measured on: no set fitted on may hold a copy of one."""
    sentinel = injection_sources.load_sentinel(("test",))
    return (
        load_tensor_trust()
        + load_bipia("test")
        + load_not_inject()
        + load_jailbreaks("test")
        + [r["text"] for r in test]
        + [t for texts in sentinel.injections.values() for t in texts]
        + sentinel.benign
    )


def fit_all(train: list[dict], parts: Parts, measured: list[str]) -> None:
    """Fit both readers and write their files. The classifier's threshold is the lowest
    that keeps both together within `allowed_flags` of the calibration moments, and
    within CALIBRATED_FALSE_FLAGS of the translated captions among them on their own:
    speech in a language the positives have little of is where the n-grams go wrong,
    and a bound over the whole would let it run over (a bound at CONFIDENCE on their
    count alone would forbid even the cues' own few flags)."""
    prompts = [r["text"] for r in train if r["label"] == 1]
    jailbreaks = load_jailbreaks("train")
    benign = [r["text"] for r in train if r["label"] == 0]
    # The cues are weighed on the prompts alone: a jailbreak is pages long, so it holds
    # nearly every phrase at least once, and its presence says little of a window's.
    cues = fit_cues(prompts, benign, parts.train)
    injection.WEIGHTS_FILE.write_text(json.dumps(cues, indent=2) + "\n", encoding="utf-8")
    injection.model.cache_clear()
    further = injection_sources.fitted_prompts(measured)
    # InjecGuard's few dozen are short prompts of deepset's kind: a set of their own
    # would weigh each of them as much as a hundred of the others.
    groups = [prompts + further.injections.get("injecguard", []), jailbreaks]
    groups += [texts for name, texts in further.injections.items() if name != "injecguard"]
    fitted = injection_fit.fit_classifier(groups, benign + further.benign, parts.train)
    threshold = calibrated_threshold(fitted, parts.calibrate, allowed_flags(len(parts.calibrate)))
    if parts.calibrate_translated:
        captions = parts.calibrate_translated
        allowed = int(len(captions) * CALIBRATED_FALSE_FLAGS)
        threshold = max(threshold, calibrated_threshold(fitted, captions, allowed))
    injection_fit.save(fitted, threshold)
    print(
        f"wrote {injection.WEIGHTS_FILE.name} and {classifier.CLASSIFIER_FILE.name}",
        file=sys.stderr,
    )


def rate(texts: list[str], flag: Callable[[str], bool]) -> tuple[int, int]:
    return sum(flag(t) for t in texts), len(texts)


def channels() -> dict[str, Callable[[str], bool]]:
    """The shipped detector and each of its two parts alone (the ablation)."""
    cues = injection.model()
    return {
        "shipped": injection.flagged,
        "classifier alone": lambda t: bool(classifier.flagged_windows(t)),
        "cue rules alone": lambda t: bool(injection.cue_spans(t, cues)),
    }


def time_per_result(texts: list[str], per_result: int = 10) -> dict[str, float]:
    """Milliseconds to scan a result of `per_result` moments (a page of search hits) and
    per 10,000 characters, over the given moments, each string read for the first time
    (`injection.forget` before each result: a string read before is answered from memory)."""
    results = [
        {"results": [{"text": t, "video_id": "x", "start": 0.0} for t in texts[i : i + per_result]]}
        for i in range(0, len(texts), per_result)
    ]
    injection.scan_result(results[0])
    spent = 0.0
    for result in results:
        injection.forget()
        began = time.perf_counter()
        injection.scan_result(result)
        spent += time.perf_counter() - began
    chars = sum(len(t) for t in texts)
    return {
        f"ms_per_result_of_{per_result}_moments": round(1000 * spent / len(results), 3),
        "ms_per_10k_chars": round(1000 * spent / chars * 10_000, 3),
        "results": len(results),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="refit and write the weights files")
    parser.add_argument(
        "--misses", type=int, default=0, help="print this many misses and false flags"
    )
    args = parser.parse_args(argv)
    rows = load_set(INJECTION_SET)
    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == "test"]
    if not FIT_TRANSCRIPTS.is_dir():
        sys.exit(f"no transcripts at {FIT_TRANSCRIPTS}; set FIT_TRANSCRIPTS")
    large = EVAL_CORPUS / "transcripts"
    if not large.is_dir():
        sys.exit(f"no large eval corpus at {large}; run make eval-corpus")
    translated = moments_by_video(TRANSLATIONS, by_language=True) if TRANSLATIONS.is_dir() else {}
    parts = split_videos(moments_by_video(FIT_TRANSCRIPTS), moments_by_video(large), translated)
    if args.fit:
        fit_all(train, parts, measured_texts(test))
    report: dict[str, object] = {}
    for name, flag in channels().items():
        part_report: dict[str, object] = {}
        for label, split in (
            ("deepset train (fitted on)", train),
            ("deepset test (held out)", test),
        ):
            hits, total = rate([r["text"] for r in split if r["label"] == 1], flag)
            fp, benign = rate([r["text"] for r in split if r["label"] == 0], flag)
            part_report[label] = {
                "recall": round(hits / total, 3),
                "injections": total,
                "benign_prompts_flagged": f"{fp}/{benign}",
            }
        sentinel_test = injection_sources.load_sentinel(("test",))
        attacks = [t for texts in sentinel_test.injections.values() for t in texts]
        if attacks:
            hits, total = rate(attacks, flag)
            fp, benign = rate(sentinel_test.benign, flag)
            part_report["Sentinel test (held out)"] = {
                "recall": round(hits / total, 3),
                "injections": total,
                "benign_prompts_flagged": f"{fp}/{benign}",
            }
        for label, attacks in (
            ("BIPIA attacks, test (held out, never fitted on)", load_bipia("test")),
            ("Tensor Trust attacks (held out, never fitted on)", load_tensor_trust()),
            ("jailbreak prompts, test quarter (never fitted on)", load_jailbreaks("test")),
            ("jailbreak prompts, train (fitted on)", load_jailbreaks("train")),
        ):
            if attacks:
                hits, total = rate(attacks, flag)
                part_report[label] = {"recall": round(hits / total, 3), "injections": total}
        benign_words = load_not_inject()
        if benign_words:
            fp, total = rate(benign_words, flag)
            part_report["NotInject benign prompts flagged"] = {
                "share": round(fp / total, 3),
                "flagged": f"{fp}/{total}",
            }
        for label, texts in (
            ("calibration moments (threshold set on)", parts.calibrate),
            ("large corpus, held-out videos (never fitted on)", parts.measure),
            ("large corpus, every moment", parts.every_large),
            ("de/es/fr captions, held-out videos (never fitted on)", parts.measure_translated),
        ):
            flags, total = rate(texts, flag)
            part_report[label] = {
                "false_flags": round(flags / max(total, 1), 4),
                "flagged": flags,
                "moments": total,
            }
        report[name] = part_report
    print(f"moments: train {len(parts.train)}, calibrate {len(parts.calibrate)}", file=sys.stderr)
    report["time"] = time_per_result(parts.measure)
    report["parameters"] = int(classifier.classifier().weights.size) + 2
    if args.misses:
        for text in [t for t in parts.measure if injection.flagged(t)][: args.misses]:
            print("FALSE FLAG:", text[:200].replace("\n", " "))
        missed = [r["text"] for r in test if r["label"] == 1 and not injection.flagged(r["text"])]
        for text in missed[: args.misses]:
            print("MISSED:", text[:160].replace("\n", " "))
    report["targets"] = {"recall": TARGET_RECALL, "false_flags": TARGET_FALSE_FLAGS}
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
