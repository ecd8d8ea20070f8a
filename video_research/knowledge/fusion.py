"""Query-adaptive weighting of hybrid search: how much a query leans on its keywords.

Hybrid search fuses the keyword (BM25) and vector result sets as Weaviate's
relativeScoreFusion with one weight, alpha (0 keywords only, 1 vectors only). One fixed
alpha cannot suit every query: a note naming people, products and numbers ("o1 Pro,
Claude, Gemini, Grok 3 and R1", "n = 6, d = 71") is answered by the passage that holds
those exact tokens, while the vector side pulls in same-topic passages from other
videos; a paraphrase shares no word with its passage and needs the vectors. On
`make eval` a fixed 0.6 lost to keywords only on the notes-style queries, and 0.3-0.4
lost on the viewer queries.

So the default alpha is computed from the query's own text (no statistics of the
collection, so Weaviate, whose hybrid takes alpha per query, gets exactly the same
weight): every *specific* token, one a paraphrase would not produce, lowers alpha by
`STEP` from the embedder's base (`BASE`, `MODEL_BASE`), down to `FLOOR`. Specific tokens: numbers and tokens holding a
digit ("GPT-3", "256x256"), capitalised words after the first ("Monty Hall", "Jordan"),
identifiers (CamelCase, dotted or hyphenated: "pipes.show", "matter.js"), and Latin
words or numbers inside CJK text (the names a Chinese note keeps in English). Tuned on
the tuning part of the notes set and the viewer set; the held-out part was not used
(docs/benchmarks.md has the numbers).
"""

from __future__ import annotations

import re

BASE = 0.6
"""alpha of a query without specific tokens (the previous fixed default)."""
MODEL_BASE = {"local:use-multilingual": 0.75}
"""A stronger vector side earns more weight: with use-multilingual, 0.6 lost to vectors
only on the notes' MRR, 0.7 did not; once links were placed by a vote of neighbouring
windows (`transcripts.search.MEANING_VOTE_SECONDS`), 0.7 lost to vectors only on the
viewer queries' moment@5 (0.800 against 0.807), 0.75 and 0.8 did not (0.813 and 0.820;
the notes' tuning part 0.974 with both). 0.75, not 0.8: with 100k distractor chunks
of other videos the vector side falls furthest, and 0.8 lost more there (all queries'
moment@5 0.644 against 0.652; 0.663 at 0.7) (make eval, tuning parts)."""
STEP = 0.1
"""alpha given to the keyword side per specific token."""
FLOOR = 0.4
"""The lowest adaptive alpha: the vector side always keeps a say."""

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_TOKEN = re.compile(r"[^\W_]+(?:[.\-'][^\W_]+)*", re.UNICODE)
_LATIN_IN_CJK = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]*")
_IDENTIFIER = re.compile(r"[a-z][A-Z]|[.\-]")


def specific_tokens(query: str) -> int:
    """How many tokens of `query` name something exactly (see the module docstring)."""
    count = 0
    for position, token in enumerate(_TOKEN.findall(query)):
        if _CJK.search(token):
            count += len(_LATIN_IN_CJK.findall(token))
        elif (
            any(ch.isdigit() for ch in token)
            or (position > 0 and token[0].isupper())
            or _IDENTIFIER.search(token)
        ):
            count += 1
    return count


def query_alpha(query: str, embedder_identity: str = "") -> float:
    """The hybrid weight for `query` when the caller leaves alpha out."""
    base = MODEL_BASE.get(embedder_identity, BASE)
    return max(FLOOR, base - STEP * specific_tokens(query))
