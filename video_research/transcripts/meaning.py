"""Linking by meaning: where a moment should link when the query's words do not place
it (a paraphrase, or another language).

The ~20-second windows inside a moment, embedded at index time (`windows`), are
compared with the query vector the search already has; the window whose neighbourhood
scores best is the link (`focus_by_meaning`). Moments without stored windows (screen
text, videos indexed before windows were) embed a few line windows at query time, on a
local model only.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from typing import Any

from video_research.transcripts import windows
from video_research.transcripts.moments import Line, Moment, TermMatcher, line_start, sentence_start

MEANING_VIDEOS = 10
"""Videos whose best moment is linked by meaning from stored windows (one filtered vector
search for all of them): every video of a default search's ten results. With five, a
right video ranked sixth to tenth kept its chunk's start (on make eval's paraphrase and
cross-language queries, 4 of the 34 links that missed)."""
MEANING_SMOOTHING = 0.3
MEANING_MOMENT_BONUS = 0.1
MEANING_WORD_BONUS = 0.3
"""How a window is scored against the query (see `focus_by_meaning`; tuned on the tuning
part of make eval's paraphrase and cross-language queries)."""
MEANING_VOTE_SECONDS = 20.0
MEANING_VOTE_SHARPNESS = 0.01
"""The window linked is the one whose neighbourhood (starts within MEANING_VOTE_SECONDS)
holds the most near-best scores, each weighted exp((score - best) / SHARPNESS), not the
single best window: a passage that several overlapping windows match beats a lone
window that matches by chance (the cosines of one video's windows differ by a few
hundredths). Tuned on the tuning part of make eval's paraphrase and cross-language
queries with use-multilingual; MiniLM's links gain too (docs/benchmarks.md, "Links:
every video of the results")."""
MEANING_WORD_CANDIDATES = 30
"""Windows per video in which the query's words are counted (the best by meaning)."""
MEANING_MOMENTS = 3
"""Moments without stored windows and without any query word that are linked by meaning
at query time (each costs one batch of short embeddings; the rest keep their best
chunk's start)."""
MEANING_LONG_QUERY = 6
"""Query terms from which a moment matching only one of them is linked by meaning."""
MEANING_WINDOW_LINES = 3
"""Caption lines per window compared with the query (about 8-12 seconds of speech)."""
MEANING_STEP = 2
"""Lines between the starts of two windows."""


def telling_match(moment: Moment, matcher: TermMatcher) -> bool:
    """Whether the query's words in the moment are enough to place the link by: a long
    query (MEANING_LONG_QUERY terms or more, e.g. a note in another language that keeps
    one English name) matching a single one of its terms is placed by meaning instead,
    since that name may be said anywhere in the moment."""
    if len(matcher.terms) < MEANING_LONG_QUERY:
        return True
    found = set().union(*(matcher.find(line.text) for line in moment.lines()))
    return len(found) >= 2


async def focus_by_meaning(
    moments: Sequence[Moment],
    links: list[float | None],
    weak: Sequence[bool],
    stored: dict[str, list[windows.Scored]],
    vector: Any,
    store: Any,
    matcher: TermMatcher,
) -> None:
    """Link moments by meaning, from the windows stored at index time (`windows`), those
    of `window_spans` as `windows.in_spans` read them (`stored`).

    The best moment of each of the first MEANING_VIDEOS videos is linked to the window
    inside it (starting at most a window step before it) that scores best: its cosine to
    the query (smoothed with its two neighbours', MEANING_SMOOTHING, since a passage
    outlasts a window), plus MEANING_MOMENT_BONUS times the search's score of a moment of
    this video that holds the window (relative to the best), plus MEANING_WORD_BONUS times
    the share of the query's words it holds; of those scores, the window whose neighbours
    hold the most near-best ones wins (MEANING_VOTE_SHARPNESS). Inside the moment: a
    moment is sentences within 30 s ranked by its own words and vector, so the passage is
    the moment; the vote over the whole video (made for 200-token chunks, whose text
    matched while the passage sat minutes away) pulled links off it (make eval, docs/
    benchmarks.md "Sentence-sized moments"). A moment the query's words place (`focus`,
    not `weak`) keeps that sentence when the chosen window is within WINDOW_SECONDS of it.

    Only the windows that overlap those videos' moments are read and scored
    (`window_spans`: a few per moment, one filtered vector search for all); they also
    give each moment its relevance's window signal (`Moment.window_cosine`). Reading every
    window of their videos made linking cost more than the search at 100k chunks
    (docs/benchmarks.md, "The link at its price").

    A weak moment without stored windows (a video indexed before they were, or text read
    off the screen) falls back to embedding windows of MEANING_WINDOW_LINES lines of its
    best chunk now, on a local model only (a remote one would bill every search), for at
    most MEANING_MOMENTS moments. Fills `links` in place."""
    first = _videos(moments)
    without = set(first) - set(stored)
    for moment in moments:  # the windows are speech: a slide's moment has none
        if (moment.props.get("evidence") or "speech") == "speech":
            moment.window_cosine = _window_cosine(moment, stored.get(moment.props["video_id"], ()))
    for video_id, scored in stored.items():
        at = first[video_id]
        moment = moments[at]
        # None for a moment its words place that is too short for any of its windows to
        # lie more than WINDOW_SECONDS from that sentence: the link would not move.
        if not (weak[at] or _could_move(moment)):
            continue
        own = [m for m in moments if m.props["video_id"] == video_id]
        # A moment is sentences within 30 s, ranked by its own words and vector: its link
        # by meaning is the best window inside it.
        inside = _inside(moment, scored)
        if not inside:
            continue
        start = _best_window(inside, own, matcher)
        lexical = links[at]
        if (
            weak[at]
            or lexical is None
            or abs(start - line_start(moment, lexical)) > windows.WINDOW_SECONDS
        ):
            links[at] = start
    # Only what has no stored windows is embedded now (screen text, older indexes).
    unplaced = [
        at
        for at, moment in enumerate(moments)
        if weak[at]
        and (
            moment.props["video_id"] in without
            or (moment.props.get("evidence") or "speech") != "speech"
        )
    ][:MEANING_MOMENTS]
    if unplaced and store.embedder.provider == "local":
        await _embed_lines(moments, links, unplaced, vector, store.embedder)


def _videos(moments: Sequence[Moment]) -> dict[str, int]:
    """The first MEANING_VIDEOS videos with a spoken moment, each with its best one's place."""
    videos: dict[str, int] = {}
    for at, moment in enumerate(moments):
        if (moment.props.get("evidence") or "speech") == "speech":
            videos.setdefault(moment.props["video_id"], at)
    return dict(list(videos.items())[:MEANING_VIDEOS])


def window_spans(moments: Sequence[Moment]) -> dict[str, list[tuple[float, float]]]:
    """The stretches whose windows `focus_by_meaning` reads, by video: those of the spoken
    moments of `_videos` only. The windows that overlap each spoken moment score
    its relevance (`_window_cosine`), and those inside a video's best moment (a window
    may start a step before it) place its link."""
    first = _videos(moments)
    spans: dict[str, list[tuple[float, float]]] = {}
    for moment in moments:
        video_id = moment.props["video_id"]
        if video_id in first and (moment.props.get("evidence") or "speech") == "speech":
            spans.setdefault(video_id, []).append(
                (moment.start - windows.WINDOW_SECONDS, moment.end)
            )
    return spans


def _could_move(moment: Moment) -> bool:
    """Whether a window inside `moment` may start more than WINDOW_SECONDS from a sentence
    of it: windows start at most a step before the moment, its sentences within it."""
    span = moment.end - moment.start + windows.WINDOW_STEP_SECONDS
    return span + 0.02 > windows.WINDOW_SECONDS


def _inside(moment: Moment, scored: Sequence[Any]) -> list[Any]:
    """The windows of `scored` that lie in the moment (one may start a window step before
    it; start times are stored to the hundredth of a second)."""
    low = moment.start - windows.WINDOW_STEP_SECONDS - 0.01
    high = moment.end + 0.01
    return [window for window in scored if low <= window.start <= high]


def _window_cosine(moment: Moment, scored: Sequence[Any]) -> float | None:
    """The best cosine of the windows that overlap `moment` (None: none was scored). Not
    only those inside it: windows start where captions start, so the last sentences of a
    video may lie in a window that began before them. `scored` is in time order: two
    bisections find the few overlapping windows among a video's hundreds."""
    low = bisect.bisect_right(scored, moment.start - windows.WINDOW_SECONDS, key=_start)
    high = bisect.bisect_right(scored, moment.end, key=_start)
    return max((window.cosine for window in scored[low:high]), default=None)


def _start(window: Any) -> float:
    return window.start


def _best_window(scored: Sequence[Any], own: Sequence[Moment], matcher: TermMatcher) -> float:
    """The start of the window that the best-scoring windows around it vote for (see
    `focus_by_meaning`, MEANING_VOTE_SHARPNESS). The words are looked for in the
    MEANING_WORD_CANDIDATES windows that score best without them only: a video has
    hundreds of windows, and the word bonus only reorders the leaders."""
    count = len(scored)
    if count == 1:
        return scored[0].start
    # Plain floats, not numpy: a moment holds a few windows, where numpy's per-call cost
    # was most of this function's (ten calls a search).
    starts = [window.start for window in scored]
    cosine = [window.cosine for window in scored]
    score = [
        (1 - MEANING_SMOOTHING) * cosine[at]
        + MEANING_SMOOTHING * (cosine[max(at - 1, 0)] + cosine[min(at + 1, count - 1)]) / 2
        for at in range(count)
    ]
    top = max(moment.score for moment in own) or 1.0
    # each moment's span and share read once, not once for each window
    spans = [(m.start - 5.0, m.end, m.score / top) for m in own]
    for at, start in enumerate(starts):
        held = max((share for low, high, share in spans if low <= start <= high), default=0.0)
        score[at] += MEANING_MOMENT_BONUS * max(held, 0.0)
    if matcher.terms:
        leaders = sorted(range(count), key=lambda at: -score[at])[:MEANING_WORD_CANDIDATES]
        for at in leaders:
            found = len(matcher.find(scored[at].text))
            score[at] += MEANING_WORD_BONUS * found / len(matcher.terms)
    best = max(score)
    weights = [math.exp((value - best) / MEANING_VOTE_SHARPNESS) for value in score]
    # Each window's vote: the weights of the windows starting within MEANING_VOTE_SECONDS
    # of it, from a running total over the windows in time order (no n x n loop).
    order = sorted(range(count), key=lambda at: starts[at])
    ordered = [starts[at] for at in order]
    total = [0.0, *itertools.accumulate(weights[at] for at in order)]
    votes = [
        total[bisect.bisect_right(ordered, start + MEANING_VOTE_SECONDS)]
        - total[bisect.bisect_left(ordered, start - MEANING_VOTE_SECONDS)]
        for start in starts
    ]
    # Windows whose neighbourhoods are the same (a short video's few windows all see
    # one another) tie: the best-scoring of them wins, as without the vote.
    most = max(votes) * (1 - 1e-9)
    tied = [at for at in range(count) if votes[at] >= most]
    return starts[max(tied, key=lambda at: score[at])]


async def _embed_lines(
    moments: Sequence[Moment],
    links: list[float | None],
    todo: Sequence[int],
    vector: Any,
    embedder: Any,
) -> None:
    """The query-time fallback of `focus_by_meaning`: windows of MEANING_WINDOW_LINES lines
    of each moment's best chunk, embedded in one batch (as queries: they go before
    indexing batches), ranked by cosine to the query vector; the link is the start of the
    best window's sentence."""
    import numpy as np

    texts: list[str] = []
    spans: list[tuple[int, list[Line], list[int]]] = []
    for at in todo:
        lines = Moment(moments[at].hits[:1]).lines()
        if len(lines) < 2:
            continue
        starts = list(range(0, max(1, len(lines) - MEANING_WINDOW_LINES + 1), MEANING_STEP))
        spans.append((at, lines, starts))
        texts.extend(
            " ".join(line.text for line in lines[first : first + MEANING_WINDOW_LINES])
            for first in starts
        )
    if not texts:
        return
    rows = np.asarray(await embedder.embed(texts, "query"))
    similarity = rows @ np.asarray(vector, dtype=np.float32)
    offset = 0
    for at, lines, starts in spans:
        best = int(np.argmax(similarity[offset : offset + len(starts)]))
        offset += len(starts)
        links[at] = sentence_start(lines, starts[best])
