"""Transcript search: hybrid search over the chunks, neighbouring hits merged into
moments, each moment linked to the sentence where the query's words are spoken.

Cost is one query embedding and one store search, whatever the query's length: the
store bounds its keyword terms, and pinpointing works on the words of the chunks the
search returned (with the start time of each of their lines, stored at index time), so
it embeds nothing and reads nothing more from the store.

Pinpointing (`focus`) scores every line of a moment, with its next line, by the query
terms it holds (weighted by how rare each is among the moment's lines), takes the best
(the earliest of equals), and walks back to the start of that line's sentence. The link
is therefore never later than the words that matched. With no query word in the moment
(a paraphrase, or another language), moments are linked by meaning (`focus_by_meaning`:
the ~20-second windows inside them, embedded at index time by `windows`, compared
with the query vector the search already has); the others link to the start of their
best chunk.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from video_research.knowledge import relevance
from video_research.knowledge.filters import FilterNode
from video_research.knowledge.store import SearchHit, get_store
from video_research.transcripts import windows
from video_research.transcripts.indexer import CHUNKS, timestamp_url, video_fields
from video_research.transcripts.line_position import LONG_LINE_SECONDS, lasting, said_at

MERGE_GAP_SECONDS = 15.0
"""Hits in one video closer than this merge into one moment."""
MERGE_MAX_CHUNKS = 3
"""A moment spans at most this many chunks, so one long passage does not swallow a result."""
MERGE_SCORE_RATIO = 0.7
"""A neighbouring hit joins a moment only when it scores at least this share of the moment."""
CANDIDATES_PER_RESULT = 3
"""Chunks asked of the store per moment returned (neighbours merge into one moment)."""
MAX_TERMS = 32
"""Query terms pinpointing looks for: a long query costs no more than this."""
SENTENCE_BACKTRACK_LINES = 3
"""Lines a link may move back to reach the start of its sentence."""
SENTENCE_BACKTRACK_SECONDS = 20.0
SENTENCE_PAUSE_SECONDS = 8.0
"""A line that starts this long after the one before begins a new sentence, punctuated or
not: speech recognisers often leave the full stop off, and a caption line seldom lasts 8 s."""
LOW_CONTENT_WORDS_PER_MINUTE = 10.0
LOW_CONTENT_SPAN_SECONDS = 600.0
LOW_CONTENT_FACTOR = 0.25
"""Fused score kept by a low-content chunk (it stays findable, below real passages)."""
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

_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?…。！？][\"')\]]*\s*$")
_STOPWORD_TEXT = """
a an and are as at be been but by can could did do does doing for from had has have he
her here his how i if in into is it its just like me my no not of on or our she so some
than that the their them then there these they this those to too up us very was we were
what when where which while who why will with would you your yours about also all any
because been being both each few more most other over same should such only own out off
again further once let lets get got go going gonna wanna say said one two
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


_SUFFIXES = ("'s", "ing", "ed", "es", "s", "ly")


def _stem(word: str) -> str:
    """A crude English stem, enough to match 'curves' with 'curve' and 'colored' with 'coloring'."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def query_terms(query: str) -> list[str]:
    """The query's distinct content words, stemmed, at most MAX_TERMS of them."""
    found: dict[str, None] = {}
    for word in _WORD.finditer(query):
        lowered = word.group().lower()
        if lowered in _STOPWORDS or (len(lowered) < 2 and not lowered.isdigit()):
            continue
        found.setdefault(_stem(lowered), None)
        if len(found) >= MAX_TERMS:
            break
    return list(found)


class TermMatcher:
    """Finds a query's stemmed terms in caption lines: a word matches a term when it is the
    term plus nothing or one of the stemmer's suffixes (the longest such term). Every such
    form of every term is one key of a dict, so a line is its words looked up there:
    nothing is compiled per query (a regular expression of the terms cost more to compile
    than the rest of linking, and scanned each line at every position)."""

    def __init__(self, terms: Sequence[str]) -> None:
        self.terms = list(terms)
        self._forms: dict[str, str] = {}
        # "'s" never ends a word (\w+ stops at the apostrophe): the term before it is a word.
        suffixes = ("", *(suffix for suffix in _SUFFIXES if suffix.isalnum()))
        for term in sorted(self.terms, key=len):  # a longer term takes a form over a shorter
            for suffix in suffixes:
                self._forms[term + suffix] = term
        self._found: dict[str, frozenset[str]] = {}

    def find(self, text: str) -> frozenset[str]:
        """The terms in `text` (remembered: linking asks about a line more than once)."""
        found = self._found.get(text)
        if found is None:
            forms = self._forms
            # Each word lowered as `query_terms` lowers them (lowering the line first would
            # cut a word whose lower case holds a combining mark, such as Turkish İ).
            words = map(str.lower, _WORD.findall(text)) if forms else ()
            found = self._found[text] = frozenset(forms[w] for w in words if w in forms)
        return found

    def positions(self, text: str) -> list[tuple[int, str]]:
        """(character offset, term) of each word of `text` that is a query term, in order."""
        forms = self._forms
        return [
            (word.start(), forms[lowered])
            for word in _WORD.finditer(text)
            if (lowered := word.group().lower()) in forms
        ]


@dataclass(frozen=True)
class Line:
    index: int
    """The cue's index in the video's transcript."""
    start: float
    text: str
    end: float
    """When the next line starts (the chunk's end for its last line); the start itself
    when the chunk stored no line times."""


@dataclass
class Moment:
    """One or more adjacent chunk hits in one video, best first."""

    hits: list[SearchHit]
    window_cosine: float | None = None
    """The best cosine to the query of the stored windows that overlap the moment (set
    where links are placed by meaning, `focus_by_meaning`): its relevance's third signal."""
    _lines: tuple[int, list[Line]] | None = field(default=None, init=False, repr=False)

    @property
    def props(self) -> dict[str, Any]:
        return self.hits[0].properties

    @property
    def start(self) -> float:
        return min(hit.properties["start_time"] for hit in self.hits)

    @property
    def end(self) -> float:
        return max(hit.properties["end_time"] for hit in self.hits)

    @property
    def score(self) -> float:
        return self.hits[0].score

    def lines(self) -> list[Line]:
        """The moment's captions in order, once each even where its chunks overlap; a
        chunk indexed before line times were stored gives its lines its own start (read
        once per moment: linking asks for them several times)."""
        if self._lines is not None and self._lines[0] == len(self.hits):
            return self._lines[1]
        lines: dict[int, Line] = {}
        for hit in self.hits:
            props = hit.properties
            first = props.get("first_cue") or 0
            texts = props["text"].split("\n")
            starts = _starts(props.get("cue_starts"), len(texts), props["start_time"])
            timed = props.get("cue_starts") is not None and len(set(starts)) == len(starts)
            ends = [*starts[1:], float(props.get("end_time") or starts[-1])] if timed else starts
            for offset, (text, start, end) in enumerate(zip(texts, starts, ends, strict=True)):
                lines.setdefault(first + offset, Line(first + offset, start, text, max(end, start)))
        ordered = [lines[index] for index in sorted(lines)]
        self._lines = (len(self.hits), ordered)
        return ordered

    def home(self, at: float) -> SearchHit:
        """The chunk the link lands in (the best of those holding `at`; the best chunk when
        none does): its sentences are the hit's text and its span the hit's, so a result
        reads as the moment it links to, not as the neighbours merged into it."""
        for hit in self.hits:
            if hit.properties["start_time"] <= at <= hit.properties["end_time"]:
                return hit
        return self.hits[0]

    def to_result(self, match_time: float | None) -> dict[str, Any]:
        props = self.props
        focus = props["start_time"] if match_time is None else match_time
        best = self.hits[0]
        scores = {
            "fused": round(best.score, 6),
            "relevance": _rounded(best.relevance),
            "cosine": _rounded(None if best.distance is None else 1.0 - best.distance),
            "keyword": _rounded(best.keyword_score),
            "share": _rounded(best.keyword_share),
            "window": _rounded(self.window_cosine),
        }
        home = self.home(focus)
        best_relevance = max(
            (h.relevance for h in self.hits if h.relevance is not None), default=0.0
        )
        return {
            "scores": scores,
            "relevance": best_relevance,
            "weak": relevance.is_weak(best_relevance),
            "low_content": low_content(props),
            **video_fields(props),
            "timestamp_url": timestamp_url(props["video_id"], props.get("video_url") or "", focus),
            # a link by meaning may lie beyond the chunks that matched: the span holds it
            "start_time": min(home.properties["start_time"], focus),
            "end_time": max(home.properties["end_time"], focus),
            "match_time": focus,
            "text": home.properties["text"].replace("\n", " "),
            "score": round(self.score, 6),
            "chapter": props.get("chapter"),
            "chunks": len(self.hits),
            "evidence": props.get("evidence") or "speech",
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def low_content(props: dict[str, Any]) -> bool:
    """A chunk that says almost nothing for its length: fewer than LOW_CONTENT_WORDS_PER_MINUTE
    distinct words a minute ("[MUSIC] you you you" over 12 minutes), or one chunk over
    LOW_CONTENT_SPAN_SECONDS (a transcript without timing, cut as one block). Real speech
    has ~100 distinct words a minute (the eval corpus: 1% of chunks under 42).

    Never on-screen text: a slide says few words a minute by nature (a title shown for a
    minute), and when they are the words asked for it is the answer, not filler; its
    relevance (knowledge.relevance) says whether it matches."""
    if props.get("evidence") == "screen":
        return False
    span = max(float(props.get("end_time", 0)) - float(props.get("start_time", 0)), 1.0)
    if span > LOW_CONTENT_SPAN_SECONDS:
        return True
    minutes = max(span / 60.0, 0.5)
    # Counted only until the rate is reached: real speech gets there within its first
    # dozen words, and a search asks this of each of its 30 hits (reading every word of
    # every hit cost 0.5 ms a search at 100k chunks).
    distinct: set[str] = set()
    for word in _WORD.finditer(props.get("text", "")):
        lowered = word.group().lower()
        if lowered not in distinct:
            distinct.add(lowered)
            if len(distinct) / minutes >= LOW_CONTENT_WORDS_PER_MINUTE:
                return False
    return len(distinct) / minutes < LOW_CONTENT_WORDS_PER_MINUTE


def rank_down_low_content(hits: list[SearchHit]) -> list[SearchHit]:
    """Hits with low-content chunks (see `low_content`) scaled by LOW_CONTENT_FACTOR, so a
    minutes-long chunk of filler never outranks a passage that says something."""
    ranked = []
    for hit in hits:
        if low_content(hit.properties):
            hit = hit.model_copy(update={"score": hit.score * LOW_CONTENT_FACTOR})
        ranked.append(hit)
    return ranked


def _starts(raw: Any, count: int, fallback: float) -> list[float]:
    try:
        starts = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        starts = None
    if not isinstance(starts, list) or len(starts) != count:
        return [fallback] * count
    return [float(value) for value in starts]


def _touches(moment: Moment, hit: SearchHit) -> bool:
    props = hit.properties
    return (
        props["start_time"] <= moment.end + MERGE_GAP_SECONDS
        and props["end_time"] >= moment.start - MERGE_GAP_SECONDS
    )


def merge_hits(hits: Sequence[SearchHit]) -> list[Moment]:
    """Hits as moments, best first: a hit joins a better one in the same video when it
    overlaps or nearly touches it and scores at least MERGE_SCORE_RATIO of it, so a strong
    passage absorbs its strong neighbours but not the whole video."""
    moments: list[Moment] = []
    by_video: dict[str, list[Moment]] = {}
    for hit in sorted(hits, key=lambda h: -h.score):
        # what was said and what was shown are separate moments, even at one time
        evidence = hit.properties.get("evidence") or "speech"
        video = by_video.setdefault(f"{hit.properties['video_id']}\0{evidence}", [])
        home = next(
            (
                moment
                for moment in video
                if len(moment.hits) < MERGE_MAX_CHUNKS
                and hit.score >= MERGE_SCORE_RATIO * moment.score
                and _touches(moment, hit)
            ),
            None,
        )
        if home is None:
            home = Moment([hit])
            moments.append(home)
            video.append(home)
        else:
            home.hits.append(hit)
    return moments


def focus(moment: Moment, matcher: TermMatcher) -> float | None:
    """When the query's words are spoken in the moment: the start of the sentence holding
    the best-matching line (with its next line), or inside a line longer than
    LONG_LINE_SECONDS where its words are said (`line_position`); None when no query
    word is in it."""
    lines = moment.lines()
    if not lines or not matcher.terms:
        return None
    present = [matcher.find(line.text) for line in lines]
    frequency = Counter(term for found in present for term in found)
    if not frequency:
        return None
    total = len(lines)
    weight = {
        term: math.log(1 + (total - seen + 0.5) / (seen + 0.5)) for term, seen in frequency.items()
    }
    own = [sum(weight[term] for term in found) for found in present]
    best, best_at = 0.0, -1
    for at in range(total):
        window = present[at]
        if at + 1 < total and lines[at + 1].index == lines[at].index + 1:
            window = window | present[at + 1]
        score = sum(weight[term] for term in window)
        if score > best + 1e-9:  # strictly better: the earliest of equal windows wins
            best, best_at = score, at
    if best_at < 0:
        return None
    # The window's first line, unless the next one holds most of what matched.
    first = best_at
    if best_at + 1 < total and own[best_at] < 0.5 * own[best_at + 1]:
        first = best_at + 1
    line = lines[first]
    spoken = lasting(line.text, line.start, line.end)
    if spoken > LONG_LINE_SECONDS:
        positions = matcher.positions(line.text)
        return said_at(line.text, line.start, line.start + spoken, positions, weight)
    return sentence_start(lines, first)


def line_start(moment: Moment, at: float) -> float:
    """The start of the moment's line that is being said at `at` (`at` itself when no
    line holds it): a link inside a long line is as near a window starting at that line
    as the line's own start is."""
    for line in moment.lines():
        if line.start <= at < line.end:
            return line.start
    return at


def sentence_start(lines: Sequence[Line], at: int) -> float:
    """The start of the sentence line `at` belongs to: back over lines that continue it."""
    position = at
    while (
        position > 0
        and at - position < SENTENCE_BACKTRACK_LINES
        and lines[position - 1].index == lines[position].index - 1
        and not _SENTENCE_END.search(lines[position - 1].text)
        and lines[position].start - lines[position - 1].start < SENTENCE_PAUSE_SECONDS
        and lines[at].start - lines[position - 1].start <= SENTENCE_BACKTRACK_SECONDS
    ):
        position -= 1
    return lines[position].start


async def search(
    query: str,
    *,
    k: int,
    alpha: float | None,
    where: FilterNode | None,
    min_score: float | None,
    pinpoint: bool = True,
) -> list[dict[str, Any]]:
    """The k best moments for `query`: hybrid search over the chunks, merged; with
    `pinpoint`, each linked to the sentence where the query's words are spoken (or, with
    none of them, to the passage closest in meaning)."""
    store = await get_store()
    vector = None
    if alpha != 0.0:
        vector = (await store.embedder.embed([query], "query"))[0]
    hits = await store.hybrid(
        CHUNKS,
        query,
        alpha=alpha,
        where=where,
        limit=min(k * CANDIDATES_PER_RESULT, 1000),
        min_score=min_score,
        vector=vector,
    )
    moments = merge_hits(rank_down_low_content(hits))[:k]
    links = await link_moments(query, moments, vector, store) if pinpoint else [None] * len(moments)
    results = [moment.to_result(link) for moment, link in zip(moments, links, strict=True)]
    if min_score is not None:  # a moment's relevance in context may fall below it
        results = [r for r in results if r["relevance"] >= min_score]
    return results


async def link_moments(
    query: str, moments: Sequence[Moment], vector: Any, store: Any
) -> list[float | None]:
    """Where each moment should link (None: its best chunk's start). The one linking path
    of both semantic_search_transcripts and the knowledge tools (`pinpoint_hits`): by the
    query's words where the moment holds enough of them (`focus`), else by meaning
    (`focus_by_meaning`, given the query `vector`)."""
    matcher = TermMatcher(query_terms(query))
    if vector is None:
        return [focus(moment, matcher) for moment in moments]
    # The stored windows are read in the store's thread while the query's words place the
    # links here: neither waits for the other (at 100k chunks the read is a third of
    # linking, the words another third).
    reading = asyncio.ensure_future(windows.in_spans(store, vector, _meaning_spans(moments)))
    await asyncio.sleep(0)  # let the read reach the store's thread before this work
    try:
        links = [focus(moment, matcher) for moment in moments]
        weak = [
            link is None or not _telling_match(m, matcher)
            for m, link in zip(moments, links, strict=True)
        ]
        stored = await reading
    finally:
        reading.cancel()  # nothing once it has answered; the read if placing failed
    await focus_by_meaning(moments, links, weak, stored, vector, store, matcher)
    rescore_in_context(moments, store.embedder.identity)
    return links


def rescore_in_context(moments: Sequence[Moment], model: str) -> None:
    """Each hit of a moment with a window cosine gets the relevance that reads it too
    (`relevance.relevance_in_context`); the rest keep their two-signal relevance."""
    for moment in moments:
        if moment.window_cosine is None:
            continue
        for hit in moment.hits:
            cosine = None if hit.distance is None else 1.0 - hit.distance
            hit.relevance = relevance.relevance_in_context(
                cosine, moment.window_cosine, hit.keyword_share, model
            )


def _telling_match(moment: Moment, matcher: TermMatcher) -> bool:
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
    of `_meaning_spans` as `windows.in_spans` read them (`stored`).

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
    (`_meaning_spans`: a few per moment, one filtered vector search for all); they also
    give each moment its relevance's window signal (`Moment.window_cosine`). Reading every
    window of their videos made linking cost more than the search at 100k chunks
    (docs/benchmarks.md, "The link at its price").

    A weak moment without stored windows (a video indexed before they were, or text read
    off the screen) falls back to embedding windows of MEANING_WINDOW_LINES lines of its
    best chunk now, on a local model only (a remote one would bill every search), for at
    most MEANING_MOMENTS moments. Fills `links` in place."""
    first = _meaning_videos(moments)
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


def _meaning_videos(moments: Sequence[Moment]) -> dict[str, int]:
    """The first MEANING_VIDEOS videos with a spoken moment, each with its best one's place."""
    videos: dict[str, int] = {}
    for at, moment in enumerate(moments):
        if (moment.props.get("evidence") or "speech") == "speech":
            videos.setdefault(moment.props["video_id"], at)
    return dict(list(videos.items())[:MEANING_VIDEOS])


def _meaning_spans(moments: Sequence[Moment]) -> dict[str, list[tuple[float, float]]]:
    """The stretches whose windows `focus_by_meaning` reads, by video: those of the spoken
    moments of `_meaning_videos` only. The windows that overlap each spoken moment score
    its relevance (`_window_cosine`), and those inside a video's best moment (a window
    may start a step before it) place its link."""
    first = _meaning_videos(moments)
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


async def pinpoint_hits(question: str, hits: list[SearchHit], vector: Any = None) -> None:
    """Point each transcript chunk at the moment `question` is about, exactly as `search`
    links its moments (`link_moments`: the sentence where the question's words are spoken,
    else, given the query `vector`, the passage closest in meaning): the chunk's
    `start_time` and `timestamp_url` move there; a chunk placed by neither keeps its own
    start. knowledge_search, knowledge_ask and research_document cite chunks this way
    (registered with the knowledge layer's passages by
    `transcripts.register_with_knowledge`)."""
    if not hits:
        return
    moments = [Moment([hit]) for hit in hits]
    links = await link_moments(question, moments, vector, await get_store())
    for moment, start in zip(moments, links, strict=True):
        if start is None:
            continue
        moment.props["start_time"] = start
        moment.props["timestamp_url"] = moment.to_result(start)["timestamp_url"]
