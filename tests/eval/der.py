"""Diarization error rate, frame by frame (10 ms): (missed + false alarm + confusion)
over the reference's speech time, with the hypothesis' speakers mapped one-to-one onto
the reference's to make the fewest errors (Hungarian assignment), overlapping reference
speech counted once per speaker (NIST's definition, no collar).

pyannote.metrics computes the same but brings pandas, scikit-learn and sympy; this is
small, and tested against hand-worked cases (tests/media/test_der.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

STEP = 0.01

Turns = Sequence[tuple[float, float, str]]


def _matrix(turns: Turns, frames: int) -> tuple[np.ndarray, list[str]]:
    names = sorted({speaker for _, _, speaker in turns})
    grid = np.zeros((len(names), frames), bool)
    for start, end, speaker in turns:
        grid[names.index(speaker), int(round(start / STEP)) : int(round(end / STEP))] = True
    return grid, names


def der(reference: Turns, hypothesis: Turns) -> float:
    from scipy.optimize import linear_sum_assignment

    end = max([e for _, e, _ in [*reference, *hypothesis]], default=0.0)
    frames = int(round(end / STEP)) + 1
    ref, _ = _matrix(reference, frames)
    hyp, _ = _matrix(hypothesis, frames)
    total = int(ref.sum())
    if total == 0:
        return 0.0 if not hyp.any() else 1.0
    correct = 0
    if len(ref) and len(hyp):
        overlap = ref.astype(np.int64) @ hyp.T.astype(np.int64)
        rows, cols = linear_sum_assignment(-overlap)
        correct = int(overlap[rows, cols].sum())
    errors = np.maximum(ref.sum(axis=0), hyp.sum(axis=0)).sum() - correct
    return float(errors) / total
