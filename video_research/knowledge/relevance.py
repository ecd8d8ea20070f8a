"""What a hit's relevance means, and the words it says when nothing matches.

Every search hit carries a relevance in 0..1: how likely it is to answer the query,
comparable across queries and collections (unlike the fused score, which ranks within
one search only). It is computed by `knowledge.ranking.relevance` from the hit's own
signals, with a logistic fit per embedding model. Below `WEAK` a hit is weak: more
likely unrelated than an answer, and a result whose hits are all weak says so
(`note_if_all_weak`).
"""

from __future__ import annotations

from video_research.knowledge import guidance

_ENGLISH_STOPWORDS = """
a an and are as at be been but by can could did do does doing for from had has have he
her here his how i if in into is it its just like me my no not of on or our she so some
than that the their them then there these they this those to too up us very was we were
what when where which while who why will with would you your about also all any each
more most other over should such only out again once get got one two
"""
STOPWORDS: frozenset[str] = frozenset(_ENGLISH_STOPWORDS.split()).union(
    *guidance.STOPWORDS.values()
)
"""Words that say nothing of a query's subject (English, and the commonest words of the
Latin-script languages knowledge.guidance tells apart)."""

WEAK = 0.5
"""Relevance below which a hit is weak: more likely unrelated than an answer."""


def is_weak(value: float | None) -> bool:
    return value is None or value < WEAK


def note_if_all_weak(scored: list[tuple[str, float | None]]) -> str | None:
    """The note for a result whose hits are all weak: (label, relevance) of each hit; None
    when one passes WEAK (or there is no hit: the empty state says its own thing)."""
    measured = [(label, value) for label, value in scored if value is not None]
    if not measured or any(not is_weak(value) for _, value in measured):
        return None
    label, best = max(measured, key=lambda pair: pair[1])
    return nothing_matches_note(label, best)


def nothing_matches_note(best_label: str, best: float) -> str:
    """The note a result carries when no hit reaches WEAK."""
    return (
        f"Nothing in the store matches this well: the best is {best_label} at {best:.2f} "
        f"(a hit below {WEAK} is weak, more likely unrelated than an answer). "
        "Do not cite these as answers; index the material that answers it, or rephrase."
    )
