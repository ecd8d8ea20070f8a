"""One calibrated relevance for every search hit: how likely it is to answer the query.

A hybrid search always returns its nearest objects, related or not, and its fused score
is rescaled per query (relativeScoreFusion gives the best hit 1.0 whatever it is), so an
unrelated lecture scored 1.0 for a question nothing in the store answers. `relevance`
is built from two signals that mean the same in every query and every collection:

- `cosine`: the cosine similarity of the hit's vector to the query's (its scale is the
  embedding model's, so the calibration is per model);
- `share`: the share of the query's distinct content words (lower-cased, accents
  folded: the keyword index's own tokens; `STOPWORDS` left out, so "how does the" in a
  question about anything matches nothing) that the hit's searchable text holds.

relevance = 1 / (1 + exp(-(a x cosine + b x share + c))), a logistic fit of "this hit
answers the query" on `make eval`'s tuning part: the right moment of the answerable
queries (positives) against the best hit of queries whose answer is not in the store
(tests/eval/no_answer_queries.jsonl, negatives). Below `WEAK` a hit is weak; the fit's
intercept is set so the answerable tuning queries whose right hit falls below it stay
under 5%. docs/benchmarks.md has the figures, tuning and held-out parts.

A spoken transcript moment has a third signal, `window`: the best cosine to the query of
the ~20 s windows stored with its video (transcripts.windows) that overlap the moment,
which the search that links moments by meaning has scored already (no extra read, no
embedding). A sentence is a few words: a paraphrase's right sentence and a neighbouring
subject's sentence reach the same cosine, but the twenty seconds around the right one go
on about what was asked, and around the neighbour's they drift off it.
`relevance_in_context` fits all three (`IN_CONTEXT`); on make eval it flags more
no-answer questions with fewer right moments lost (held-out 0.76 -> 0.80 and 0.050 ->
0.037 with use-multilingual; docs/benchmarks.md, "Relevance and the weak threshold").
Everything else (documents, knowledge objects, slides, a search without linking, a
moment without stored windows, a model without such a fit) keeps the two-signal fit,
calibrated to the same meaning on the same queries.

A hit without a cosine (a keywords-only search) is scored by its share alone
(`SHARE_ONLY`), and so is every hit of a model without a calibration of its own (Gemini
embeddings), whose cosines run on another scale. The formula reads no rank and nothing
else in the store (the windows are the moment's own speech).

One thing bounds it from above: a hit is no likelier to answer than the search is to
have found an answer at all. Where moments are linked by meaning, `ceiling` scores the
search's best evidence (the best window, chunk cosine and share among the moments it
scored: `CEILING`, fitted on the same queries) and every hit's relevance is at most that.
A question about a subject next to something indexed (brake pads beside a talk on truing
bicycle wheels) finds one sentence that fits well enough, but nothing around it goes on
about what was asked; a question that is answered finds its passage. The ceiling only
lowers: a wrong hit beside a right one keeps its own, lower score, never borrows the
right one's (the search's best window as a feature of each hit's fit, tried before, did).

Tried and not kept (measured on make eval, docs/benchmarks.md): a per-query background
(the query's cosine to a few hundred fixed sentences, subtracted or as CSLS with the
hit's own), an IDF-weighted share (word frequencies of the language, not the store), the
keyword side's calibrated BM25, the query's length, the moment's contrast with the
rest of its video, the query's words that no chunk of the store holds, and what the other
hits of the same result scored as a feature of each hit's fit (the best window of any hit
reached the targets by scoring the query, not the hit: a wrong hit beside a right one
borrowed its score; `CEILING` reads the same evidence as a bound instead). The
background looked like a gain only while its sentences were about everyday subjects, the
subjects of the no-answer questions: balanced across subjects (mathematics and
programming as much as cooking and cars) it gained nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Fit:
    """z = cosine_weight x cosine + share_weight x share + intercept."""

    cosine_weight: float
    share_weight: float
    intercept: float


CALIBRATION: dict[str, Fit] = {
    "local:use-multilingual": Fit(cosine_weight=21.118, share_weight=1.946, intercept=-6.002),
    "local:all-MiniLM-L6-v2": Fit(cosine_weight=11.701, share_weight=3.527, intercept=-2.905),
    # e5's cosines sit in a narrow band (0.75-0.9), hence the steep weight
    "local:multilingual-e5-small": Fit(cosine_weight=39.535, share_weight=2.216, intercept=-33.109),
}
"""Per embedding model, the fit over both signals on make eval's tuning part, its
intercept moved so that 4% of the tuning part's right moments fall below WEAK
(`make eval EVAL="--calibrate --embedders ..."`, tests/eval/calibration.py). The default
model's was refitted on sentence-sized moments (issue 36); MiniLM's and e5's are still
the fits on the earlier 200-token chunks."""


@dataclass(frozen=True)
class ContextFit:
    """z = cosine_weight x cosine + window_weight x window + share_weight x share + intercept."""

    cosine_weight: float
    window_weight: float
    share_weight: float
    intercept: float

    def score(self, cosine: float, window: float, share: float | None) -> float:
        """The relevance in 0..1 these signals give (a missing share counts as none)."""
        z = (
            self.cosine_weight * cosine
            + self.window_weight * window
            + self.share_weight * (share or 0.0)
            + self.intercept
        )
        return round(_logistic(z), 4)


IN_CONTEXT: dict[str, ContextFit] = {
    "local:use-multilingual": ContextFit(
        cosine_weight=5.51, window_weight=17.47, share_weight=1.675, intercept=-6.969
    ),
    # MiniLM's chunk cosine adds nothing once its window is read (the two move together,
    # so the fit leans on the window and gives the chunk a small negative weight); its
    # refits alternate between this and a fit weighing both (positive weights, 0.24
    # tuning no-answer weak instead of 0.34): the one that does better on the tuning part
    "local:all-MiniLM-L6-v2": ContextFit(
        cosine_weight=-3.752, window_weight=12.914, share_weight=3.617, intercept=-2.498
    ),
}
"""Per embedding model, the fit over the moment's cosine, its best window's cosine and the
share on make eval's tuning part, its intercept moved as CALIBRATION's (4% of the tuning
part's right moments below WEAK), refitted until the no-answer queries' best hits it
picks are those it was fitted on (`make eval EVAL="--calibrate --embedders ..."`); then
raised where the search's CEILING shares those 4% with it (by 0.25 for use-multilingual,
0.5 for MiniLM). A model without one scores moments by CALIBRATION."""


# The same three signals as IN_CONTEXT's, each the best among the moments a search scored.
CEILING: dict[str, ContextFit] = {
    "local:use-multilingual": ContextFit(
        cosine_weight=6.895, window_weight=18.52, share_weight=2.724, intercept=-9.568
    ),
    "local:all-MiniLM-L6-v2": ContextFit(
        cosine_weight=3.699, window_weight=10.716, share_weight=4.322, intercept=-5.216
    ),
}
"""Per embedding model, the fit of "this search found an answer" over the search's best
window, chunk cosine and share on make eval's tuning part (answerable queries whose right
moment is in their top 10 against the no-answer queries). The right moments weak by
either their own relevance or the ceiling share IN_CONTEXT's budget (4% of the tuning
part): the ceiling's intercept is lowered as far as that allows, IN_CONTEXT's raised by
the step of tests/eval/calibration.py's OWN_RAISES that lets the pair flag the most
no-answer queries (`make eval EVAL="--calibrate"`). A model without one has no ceiling."""

SHARE_ONLY = Fit(cosine_weight=0.0, share_weight=10.0, intercept=-6.0)
"""For hits without a cosine and models without a fit: weak below 60% of the query's
content words. Not a fit: on make eval the share alone does not tell the two apart (the
best hit of a question with no answer often holds some of its words, a paraphrase none),
so it only vouches for a hit that holds most of what was asked."""


def _logistic(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def relevance(cosine: float | None, share: float | None, model: str) -> float:
    """The calibrated relevance in 0..1 of a hit with these signals (None: not measured)."""
    fit = CALIBRATION.get(model)
    if cosine is None or fit is None:
        fit, cosine = SHARE_ONLY, 0.0
    share = share or 0.0
    z = fit.cosine_weight * cosine + fit.share_weight * share + fit.intercept
    return round(_logistic(z), 4)


def relevance_in_context(
    cosine: float | None, window: float | None, share: float | None, model: str
) -> float:
    """The calibrated relevance of a transcript moment whose best stored window overlapping
    it has cosine `window` to the query (see the module doc); `relevance` where the moment
    has no window, no cosine, or the model no IN_CONTEXT fit."""
    fit = IN_CONTEXT.get(model)
    if fit is None or cosine is None or window is None:
        return relevance(cosine, share, model)
    return fit.score(cosine, window, share)


def ceiling(
    best_window: float | None, best_cosine: float | None, best_share: float | None, model: str
) -> float | None:
    """How likely a search whose best evidence is this found an answer at all: the most
    any of its hits may score (None: no ceiling, for want of a window, a cosine or a fit)."""
    fit = CEILING.get(model)
    if fit is None or best_window is None or best_cosine is None:
        return None
    return fit.score(best_cosine, best_window, best_share)


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
