"""The further public sets the injection classifier is fitted on, and the filter that keeps
every measured set out of them.

Each is read from a local file under ~/.cache/video-research/injection-sets (none enters
the repository):

- the prompt-injection set in github.com/kaif0102/Sentinel-AI-Defense-System-
  `data/raw/{train,val,test}.csv` (its `source` column names HackAPrompt, neuralchemy_v1,
  wildguard_judgecomp, harmbench, harmbench_benign and original; `data/raw/dataset.csv`
  there is its train split again, between merge markers), copied to SENTINEL_SET
  (default sentinel/). Train and val are fitted on, test is measured. Its `harmbench`
  rows (harmful requests labelled as injections) are left out: a request for harm reads
  as its benign twin does (`harmbench_benign`, labelled benign), and whether text is
  harmful is not what the flag says;
- the InjecGuard validation set and WildGuard benign prompts (github.com/leolee99/InjecGuard
  `datasets/valid.json`, `datasets/wildguard.json`), copied beside NotInject
  (INJECGUARD_SET, default injecguard/). Its BIPIA and NotInject rows are left out (both
  are measured here);
- the forbidden questions of Shen et al. (github.com/verazuo/jailbreak_llms
  `data/forbidden_question/forbidden_question_set.csv`, 390 harmful questions, none an
  injection), copied from the copy in github.com/kaif0102/Sentinel-AI-Defense-System-
  `data/raw/forbidden_question_set.csv`, whose file holds it twice between merge
  markers: the first copy, FORBIDDEN_QUESTION_SET (default
  jailbreak-llms/forbidden_question_set.csv). Benign prompts: a question is not an
  address to an agent, however harmful.

Before any is fitted on, every text that is the same as, or a near copy of, a text of a
measured set (Tensor Trust above all, chosen as the held-out set before any fit) is
dropped: the same character 5-grams as much as NEAR_COPY (Jaccard), or a longer text held
for CONTAINED of its 5-grams in one of them (a template with a different preamble).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sparse

_SETS = Path.home() / ".cache/video-research/injection-sets"
SENTINEL = Path(os.environ.get("SENTINEL_SET", _SETS / "sentinel"))
INJECGUARD = Path(os.environ.get("INJECGUARD_SET", _SETS / "injecguard"))
FORBIDDEN_QUESTIONS = Path(
    os.environ.get("FORBIDDEN_QUESTION_SET", _SETS / "jailbreak-llms/forbidden_question_set.csv")
)
NEAR_COPY = 0.3
CONTAINED = 0.5
CONTAINED_MIN_GRAMS = 100
"""Below this many 5-grams, containment is chance: a short prompt's phrases recur in
long attacks that are no copy of it."""
_GRAM = 5
_BITS = 22


@dataclass(frozen=True)
class Prompts:
    """Labelled prompts of one set, by the group they are weighed in."""

    injections: dict[str, list[str]]
    benign: list[str]


def load_sentinel(splits: tuple[str, ...]) -> Prompts:
    """The Sentinel set's rows of `splits`: injections by their source (HackAPrompt's
    competition entries apart from the rest), benign prompts all together."""
    injections: dict[str, list[str]] = {}
    benign: list[str] = []
    for split in splits:
        path = SENTINEL / f"{split}.csv"
        if not path.exists():
            continue
        for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))):
            text = row["text"].strip()
            if not text or row["source"] == "harmbench":
                continue
            if row["label"] == "1":
                group = "hackaprompt" if row["source"] == "hackaprompt" else "sentinel"
                injections.setdefault(group, []).append(text)
            else:
                benign.append(text)
    return Prompts(injections, benign)


def load_injecguard() -> Prompts:
    """InjecGuard's validation prompts (less BIPIA's and NotInject's) and WildGuard's
    benign prompts."""
    injections: list[str] = []
    benign: list[str] = []
    valid = INJECGUARD / "valid.json"
    if valid.exists():
        for row in json.loads(valid.read_text(encoding="utf-8")):
            if row["source"].startswith(("BIPIA", "NotInject")):
                continue
            (injections if row["label"] == 1 else benign).append(row["prompt"].strip())
    wild = INJECGUARD / "wildguard.json"
    if wild.exists():
        benign += [r["prompt"].strip() for r in json.loads(wild.read_text(encoding="utf-8"))]
    return Prompts({"injecguard": injections} if injections else {}, benign)


def load_forbidden_questions() -> list[str]:
    if not FORBIDDEN_QUESTIONS.exists():
        return []
    text = FORBIDDEN_QUESTIONS.read_text(encoding="utf-8")
    return [row["question"].strip() for row in csv.DictReader(io.StringIO(text))]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip()


def _grams(texts: list[str]) -> sparse.csr_matrix:
    """Each text's set of hashed character 5-grams, one row each."""
    rows: list[int] = []
    cols: list[int] = []
    for index, text in enumerate(texts):
        low = _normal(text)
        found = {
            zlib.crc32(low[i : i + _GRAM].encode()) & ((1 << _BITS) - 1)
            for i in range(max(len(low) - _GRAM + 1, 1))
        }
        rows += [index] * len(found)
        cols += sorted(found)
    return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(texts), 1 << _BITS))


def copies(texts: list[str], measured: list[str]) -> set[int]:
    """The indexes of `texts` that are the same as, or near copies of, a text in
    `measured`."""
    if not texts or not measured:
        return set()
    held = {_normal(t) for t in measured}
    found = {i for i, t in enumerate(texts) if _normal(t) in held}
    ours, theirs = _grams(texts), _grams(measured)
    shared = (ours @ theirs.T).tocoo()
    mine = np.asarray(ours.sum(axis=1)).ravel()
    other = np.asarray(theirs.sum(axis=1)).ravel()
    for i, j, both in zip(shared.row, shared.col, shared.data, strict=True):
        shorter = min(mine[i], other[j])
        if both / (mine[i] + other[j] - both) >= NEAR_COPY or (
            shorter >= CONTAINED_MIN_GRAMS and both / shorter >= CONTAINED
        ):
            found.add(int(i))
    return found


def without_copies(texts: list[str], measured: list[str]) -> list[str]:
    """`texts` less any copy of a measured text, each distinct text once."""
    distinct = list(dict.fromkeys(texts))
    dropped = copies(distinct, measured)
    return [t for i, t in enumerate(distinct) if i not in dropped]


def fitted_prompts(measured: list[str]) -> Prompts:
    """The further sets' fit splits together, less every copy of a `measured` text."""
    sentinel, guard = load_sentinel(("train", "val")), load_injecguard()
    injections = {
        group: without_copies(texts, measured)
        for group, texts in (sentinel.injections | guard.injections).items()
    }
    benign = sentinel.benign + guard.benign + load_forbidden_questions()
    return Prompts(injections, without_copies(benign, measured))
