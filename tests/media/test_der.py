"""The diarization error rate the speaker eval reports (tests/eval/der.py), on cases worked
by hand."""

from __future__ import annotations

import pytest

from tests.eval.der import der


def test_a_perfect_hypothesis_under_other_names_scores_zero():
    reference = [(0, 10, "A"), (10, 20, "B")]
    assert der(reference, [(0, 10, "S2"), (10, 20, "S1")]) == 0


def test_missed_false_alarm_and_confusion_add_up():
    reference = [(0, 10, "A"), (10, 20, "B")]
    # 2 s of B given to A's speaker (confusion), 1 s missed, 1 s of speech where none is
    hypothesis = [(0, 12, "x"), (12, 19, "y"), (20, 21, "y")]
    assert der(reference, hypothesis) == pytest.approx((2 + 1 + 1) / 20, abs=1e-3)


def test_overlap_counts_each_reference_speaker():
    reference = [(0, 10, "A"), (5, 10, "B")]  # 15 s of reference speech
    assert der(reference, [(0, 10, "x")]) == pytest.approx(5 / 15, abs=1e-3)


def test_one_speaker_found_for_two_is_half_wrong():
    reference = [(0, 10, "A"), (10, 20, "B")]
    assert der(reference, [(0, 20, "x")]) == pytest.approx(0.5, abs=1e-3)
