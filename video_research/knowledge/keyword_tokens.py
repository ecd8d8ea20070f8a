"""The keyword index's tokens, and counting a query's tokens in a text without the rest.

Tokens: words (`\\w+`), lower-cased without diacritics (as FTS5's unicode61), split
where CJK and other scripts meet, so Latin words and numbers inside a Chinese query
stay whole; a run of CJK characters becomes its overlapping character bigrams (one
character alone stays itself), the segmentation Lucene's CJKAnalyzer uses: it needs no
dictionary, and a query matches every word it contains, whatever the word boundaries.

The exact rescoring of the index's best hits needs, per hit, how often each query token
occurs among the hit's tokens: `count_terms`. An ASCII text (most transcript chunks)
has as tokens exactly its lower-cased runs of [a-z0-9_]: its other bytes become spaces
(`bytes.translate`) and `str.split` makes the words, ~10 us for a 200-token chunk where
Python's `\\w+` scan takes ~80 us; other text without CJK is scanned with `\\w+`, text
with CJK tokenised in full.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from video_research.knowledge.relevance import STOPWORDS

MAX_QUERY_TERMS = 96
"""Distinct query tokens searched (a 80-character Chinese sentence makes ~80 bigrams)."""

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = (
    r"\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    r"\uf900-\ufaff\U00020000-\U0002fa1f"
)
_SCRIPT_RUN = re.compile(f"([{_CJK}]+)|([^{_CJK}]+)")
_HAS_CJK = re.compile(f"[{_CJK}]")
_ASCII_NON_WORD = bytes.maketrans(
    bytes(c for c in range(128) if not re.match(r"\w", chr(c))),
    b" " * sum(1 for c in range(128) if not re.match(r"\w", chr(c))),
)
"""Every ASCII byte that is not a word character, to a space."""
_combining: dict[int, None] = {}


def fold(text: str) -> str:
    """`text` lower-cased without diacritics (what every token is made from)."""
    if text.isascii():  # nothing to decompose: the common case
        return text.lower()
    if not _combining:  # every combining mark, dropped by one str.translate (C speed)
        _combining.update(
            (code, None) for code in range(0x110000) if unicodedata.combining(chr(code))
        )
    return unicodedata.normalize("NFKD", text.lower()).translate(_combining)


def tokens(text: str) -> Iterable[str]:
    """The index's tokens of `text`, in order (see the module docstring)."""
    for word in _WORD.findall(fold(text)):
        if word.isascii():
            yield word
            continue
        for cjk, other in _SCRIPT_RUN.findall(word):
            if other:
                yield other
            elif len(cjk) == 1:
                yield cjk
            else:
                for at in range(len(cjk) - 1):
                    yield cjk[at : at + 2]


def index_tokens(text: str) -> str:
    """`text` as the space-separated tokens the index stores."""
    return " ".join(tokens(text))


def query_tokens(query: str) -> list[str]:
    """Distinct tokens of `query`, at most MAX_QUERY_TERMS."""
    return list(dict.fromkeys(tokens(query)))[:MAX_QUERY_TERMS]


def token_list(text: str) -> list[str]:
    """`tokens(text)` as a list, by the fastest path that gives the same tokens (see the
    module docstring): ASCII text by `bytes.translate`, text without CJK by `\\w+`."""
    folded = fold(text)
    if folded.isascii():  # ASCII: a word is a run of [A-Za-z0-9_]; bytes.translate is C
        return folded.encode().translate(_ASCII_NON_WORD).decode().split()
    if _HAS_CJK.search(folded) is None:
        return _WORD.findall(folded)
    return list(tokens(text))


def count_terms(text: str, terms: Iterable[str]) -> dict[str, int]:
    """How often each of `terms` occurs among `tokens(text)` (those that occur)."""
    counts = Counter(token_list(text))
    return {term: counts[term] for term in terms if term in counts}


def matched_share(query: str, text: str, skip: frozenset[str] = frozenset()) -> float:
    """The share of `query`'s distinct tokens that `text` holds (how fully a passage
    matches what was asked: `knowledge.fusion.keyword_match_alpha`), leaving out the
    tokens in `skip` (stopwords) unless the query has no others."""
    terms = query_tokens(query)
    if skip:
        terms = [term for term in terms if term not in skip] or terms
    if not terms:
        return 0.0
    return len(count_terms(text, terms)) / len(terms)


QUOTE_MIN_TOKENS = 6
"""The fewest tokens of a query that a passage must hold as one run for the query to
quote it (`quotes`): a shorter phrase ("the area of a circle") recurs in many passages of
one subject."""
QUOTE_SHARE = 0.6
"""The share of a query's tokens a passage must hold as one run for the query to quote it
(`quotes`). Less than all of them: a quote crosses the passage's end where sentences are
cut into passages (the Chinese podcast lines of the large eval corpus), or changes a word
of what was said. Chosen on the tuning part of make eval's large corpus (the candidates and
their figures: docs/benchmarks-log-2026.md, "Quotes first")."""


def quote_tokens(query: str) -> tuple[str, ...]:
    """`query`'s tokens in order, every one kept (what a passage it quotes holds as one
    run); empty for a query of fewer than QUOTE_MIN_TOKENS."""
    run = tuple(tokens(query))
    return run if len(run) >= QUOTE_MIN_TOKENS else ()


def longest_run(text: str, run: tuple[str, ...]) -> int:
    """The most consecutive tokens of `run` (a query's, `quote_tokens`) that `text`'s
    tokens hold in the same order, one after another. Only positions where a token of
    `text` is in `run` are visited, so a passage that shares a few words costs a few
    steps."""
    if not run:
        return 0
    at: dict[str, list[int]] = {}
    for index, token in enumerate(run):
        at.setdefault(token, []).append(index)
    best, previous = 0, {}
    for token in token_list(text):
        current = {index: previous.get(index - 1, 0) + 1 for index in at.get(token, ())}
        if current:
            best = max(best, *current.values())
        previous = current
    return best


def quotes(text: str, run: tuple[str, ...]) -> bool:
    """Whether a query whose `quote_tokens` are `run` quotes `text`: the passage holds at
    least QUOTE_SHARE of them, and QUOTE_MIN_TOKENS, as one run in the query's order."""
    if not run:
        return False
    return longest_run(text, run) >= max(QUOTE_MIN_TOKENS, math.ceil(QUOTE_SHARE * len(run)))


NOTE_MIN_WORDS = 6
"""The fewest distinct words other than stopwords a query needs for a passage holding
most of them to go first when nothing is quoted (`holds_most_words`)."""
NOTE_SHARE = 0.75
"""The share of those words such a passage holds, in any order (`holds_most_words`).
Chosen with NOTE_MIN_WORDS on the tuning parts of make eval (both corpora, and the large
one among distractor chunks) as the one pair that gained everywhere and lost nothing (the
candidates and their figures: docs/benchmarks-log-2026.md, "Notes that hold the passage's
words")."""


def holds_most_words(text: str, run: tuple[str, ...]) -> bool:
    """Whether `text` holds NOTE_SHARE of the distinct words of `run` (a query's
    `quote_tokens`) that are not stopwords, in any order, and the query has NOTE_MIN_WORDS
    of them: a note taken while watching ("places JavaScript index html running server")
    keeps the words said but not their order, so it quotes nothing, and among a hundred
    thousand chunks a passage about the same thing holding half of them can be nearer in
    meaning than the passage that holds them all."""
    words = {token for token in run if token not in STOPWORDS}
    if len(words) < NOTE_MIN_WORDS:
        return False
    return len(words.intersection(token_list(text))) >= NOTE_SHARE * len(words)


def content_terms(terms: list[str]) -> list[str]:
    """`terms` less the stopwords ("why", "should", "it"), unless that leaves none. With
    sentence-sized moments a stopword is rare enough in a small store for BM25 to rank
    on it: "why should I let the bread cool before cutting it" put "It should double in
    size" first. `telling` drops only words in more than half the passages, which such
    words are not there. Weaviate's BM25 leaves out English stopwords the same way (its
    default `en` preset). Both keyword paths (the Tantivy index and the FTS5 fallback)
    ask with these terms, so they rank alike."""
    return [term for term in terms if term not in STOPWORDS] or terms
