"""Fitting the injection classifier (video_research/support/injection_classifier.py).

Logistic regression over the classifier's own hashed n-gram windows, solved by L-BFGS:

- positives: the public sets' injections, each read whole, each set weighing the same
  in all (deepset's train split with InjecGuard's few, the jailbreaks, the Sentinel
  set's HackAPrompt entries and the rest of it: tests/eval/injections.py);
- negatives: the sets' benign prompts (weighted up: a question is not an attack), a seeded
  sample of the sentence windows of the training videos' moments, and then the windows
  the first fit scored highest (hard negatives), after which it is fitted again;
- in that second fit, each positive too long to be read whole at scan time (a
  jailbreak of a page) adds the window the first fit scored highest: a scan flags a
  window, not a page, and most sentences of a long jailbreak are a story, not the
  address, so only its most telling window is taught as one.

The threshold is not set here: `tests.eval.injections` sets it on moments of videos the
fit never saw.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sparse
from scipy.optimize import minimize

from video_research.support import injection_classifier as ic

BITS = 18
SIZES = (2, 3, 4, 5, 6)
WORDS = 2
MAX_SENTENCES = 3
SENTENCE_CHARS = 300
WHOLE_CHARS = 1200
L2 = 0.5
BENIGN_WEIGHT = 3.0
POSITIVE_SHARE = 1.0
"""The positives' total weight, as a share of the sampled speech windows' weight."""
SPEECH_SAMPLE = 40_000
HARD_NEGATIVES = 10_000
SEED = 0


def shape() -> ic.Classifier:
    return ic.Classifier(
        weights=np.zeros(1 << BITS, dtype=np.float32),
        bias=0.0,
        threshold=0.0,
        bits=BITS,
        sizes=SIZES,
        words=WORDS,
        max_sentences=MAX_SENTENCES,
        sentence_chars=SENTENCE_CHARS,
        whole_chars=WHOLE_CHARS,
    )


def window_rows(text: str, spans: list[tuple[int, int]], fitted: ic.Classifier) -> list[np.ndarray]:
    """The n-gram buckets of each window, exactly the ones its score reads."""
    found = ic.grams(text, fitted)
    return [ic.window_ids(text, span, fitted, found) for span in spans]


def matrix(rows: list[np.ndarray], bits: int) -> sparse.csr_matrix:
    """Counts scaled to unit length: the features whose dot product is a window's score."""
    if not rows:
        return sparse.csr_matrix((0, 1 << bits))
    data, indices, indptr = [], [], [0]
    for ids in rows:
        unique, counts = np.unique(ids, return_counts=True)
        data.append(counts / np.sqrt(max(float(counts @ counts), 1.0)))
        indices.append(unique)
        indptr.append(indptr[-1] + len(unique))
    return sparse.csr_matrix(
        (np.concatenate(data), np.concatenate(indices), np.array(indptr)),
        shape=(len(rows), 1 << bits),
    )


def logistic(
    x: sparse.csr_matrix, y: np.ndarray, weight: np.ndarray, start: np.ndarray
) -> np.ndarray:
    """Weighted, L2-regularised logistic regression; the last coefficient is the bias."""

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        z = x @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        value = float((weight * (np.logaddexp(0.0, z) - y * z)).sum() + L2 * (w @ w) / 2)
        residual = weight * (p - y)
        return value, np.append(x.T @ residual + L2 * w, residual.sum())

    found = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": 400})
    return found.x


def fit_classifier(sources: list[list[str]], benign: list[str], speech: list[str]) -> ic.Classifier:
    """`sources`: the positives of each public set; each set weighs the same in all, so
    the largest does not decide alone what an injection looks like."""
    base = shape()
    positives = [text for source in sources for text in source]
    share = [POSITIVE_SHARE / len(sources) / len(source) for source in sources for _ in source]
    rng = np.random.default_rng(SEED)
    speech_windows = [(t, w) for t in speech for w in ic.windows(t, base)]
    picked = rng.choice(len(speech_windows), min(SPEECH_SAMPLE, len(speech_windows)), replace=False)
    rows = [window_rows(t, [(0, len(t))], base)[0] for t in positives + benign]
    rows += [window_rows(speech_windows[i][0], [speech_windows[i][1]], base)[0] for i in picked]
    y = np.array([1.0] * len(positives) + [0.0] * (len(rows) - len(positives)))
    weight = np.concatenate(
        [
            np.array(share) * len(picked),
            np.full(len(benign), BENIGN_WEIGHT),
            np.ones(len(picked)),
        ]
    )
    x = matrix(rows, BITS)
    theta = logistic(x, y, weight, np.zeros((1 << BITS) + 1))
    first = _with(base, theta)
    # Hard negatives: the speech windows the first fit liked best, fitted against.
    seen = set(picked.tolist())
    scored = []
    at = 0
    for text in speech:
        spans = ic.windows(text, base)
        found = ic.grams(text, base)
        for span in spans:
            value = ic.exact_score(ic.window_ids(text, span, first, found), first)
            if at not in seen:
                scored.append((float(value), text, span))
            at += 1
    scored.sort(key=lambda item: -item[0])
    hard = [window_rows(text, [span], base)[0] for _, text, span in scored[:HARD_NEGATIVES]]
    long = [i for i, text in enumerate(positives) if len(text) > WHOLE_CHARS]
    telling = [best_window(positives[i], first) for i in long]
    x = sparse.vstack([x, matrix(hard, BITS), matrix(telling, BITS)]).tocsr()
    y = np.concatenate([y, np.zeros(len(hard)), np.ones(len(telling))])
    weight = np.concatenate([weight, np.ones(len(hard)), weight[long]])
    return _with(base, logistic(x, y, weight, theta))


def best_window(text: str, fitted: ic.Classifier) -> np.ndarray:
    """The n-gram buckets of the window of `text` that `fitted` scores highest."""
    spans = ic.windows(text, fitted)
    found = ic.grams(text, fitted)
    rows = [ic.window_ids(text, span, fitted, found) for span in spans]
    return max(rows, key=lambda ids: ic.exact_score(ids, fitted))


def _with(base: ic.Classifier, theta: np.ndarray) -> ic.Classifier:
    """The fitted coefficients as they will be stored (float16), so the threshold is set
    on exactly the weights that ship."""
    weights = theta[:-1].astype(np.float16).astype(np.float32)
    return ic.Classifier(
        weights=weights,
        bias=float(theta[-1]),
        threshold=0.0,
        bits=base.bits,
        sizes=base.sizes,
        words=base.words,
        max_sentences=base.max_sentences,
        sentence_chars=base.sentence_chars,
        whole_chars=base.whole_chars,
    )


def save(fitted: ic.Classifier, threshold: float) -> None:
    np.savez_compressed(
        ic.CLASSIFIER_FILE,
        weights=fitted.weights.astype(np.float16),
        bias=np.float64(fitted.bias),
        threshold=np.float64(threshold),
        bits=np.int64(fitted.bits),
        sizes=np.array(fitted.sizes, dtype=np.int64),
        words=np.int64(fitted.words),
        max_sentences=np.int64(fitted.max_sentences),
        sentence_chars=np.int64(fitted.sentence_chars),
        whole_chars=np.int64(fitted.whole_chars),
        command=np.array("python -m tests.eval.injections --fit"),
    )
    ic.classifier.cache_clear()
