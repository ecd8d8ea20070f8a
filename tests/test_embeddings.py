"""The local embedder: numpy MiniLM and the torch path compute the same vectors.

Both engines serve the same store (numpy for a few texts, torch for bulk writes), so
their vectors must be interchangeable, including texts the model has to truncate.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np

from tests.helpers import REPO_ROOT
from video_research.knowledge.embeddings import LocalEmbedder, count_tokens

TEXTS = [
    "A volcano erupts, sending ash over the valley.",
    "How to bake sourdough bread with a wild yeast starter",
    "x",
    "Gradient descent nudges each weight against the slope of the loss. " * 40,  # truncated
] + [f"Chunk {n}: the speaker moves on to topic number {n} of the lecture." for n in range(60)]


def test_numpy_and_torch_engines_agree():
    embedder = LocalEmbedder()
    bulk = embedder.encode(TEXTS)  # >= BULK_TEXTS: the torch path
    assert embedder._bulk_model is not None, "a bulk write should use torch where it is installed"
    small = np.vstack([embedder.encode(TEXTS[i : i + 4]) for i in range(0, len(TEXTS), 4)])
    assert bulk.shape == small.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(small, axis=1), 1.0, atol=1e-5)
    cosines = (bulk * small).sum(axis=1)
    assert cosines.min() > 0.9999, cosines.min()
    # Meaning, not just agreement: the bread query lands on the bread text.
    query = embedder.encode(["making a loaf of bread"])[0]
    assert int(np.argmax(small[:4] @ query)) == 1


def test_count_tokens_uses_the_model_vocabulary():
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    assert count_tokens("unbelievably") > 1  # word pieces, not words


def test_torch_loads_once_writes_close_together_add_up_to_bulk():
    """A directory arrives as one write per file: 3 x 30 texts is bulk work, queries are not."""
    embedder = LocalEmbedder()
    texts = TEXTS[4:34]
    for _ in range(100):
        embedder.encode(["one query at a time"])
    assert embedder._bulk_model is None, "single texts never make torch worth loading"
    embedder.encode(texts)
    embedder.encode(texts)
    assert embedder._bulk_model is None, "60 texts are below BULK_TEXTS"
    third = embedder.encode(texts)
    assert embedder._bulk_model is not None, "90 texts within a minute are bulk work"
    assert np.allclose(third, embedder.load().encode(texts, 32), atol=1e-4)


def test_a_query_does_not_wait_for_torch_to_load():
    """Loading torch takes seconds; a one-text query meanwhile answers from numpy at once."""
    script = textwrap.dedent(
        """
        import json, sys, threading, time
        from video_research.knowledge.embeddings import LocalEmbedder

        embedder = LocalEmbedder()
        embedder.load()
        loading = threading.Thread(target=embedder.load_bulk)
        loading.start()
        while "sentence_transformers" not in sys.modules and loading.is_alive():
            time.sleep(0.001)
        started = loading.is_alive()
        embedder.encode(["one query"])
        answered_while_loading = loading.is_alive()
        loading.join()
        print(json.dumps([started, answered_while_loading, embedder._bulk_model is not None]))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    started, answered_while_loading, loaded = json.loads(run.stdout.strip().splitlines()[-1])
    assert started and loaded, run.stderr
    assert answered_while_loading, "the query waited for torch to finish loading"
