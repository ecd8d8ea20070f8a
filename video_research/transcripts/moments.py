"""Moments: a search's results, each a chunk hit (with the later hits that say it again
word for word), and where the query's words place its link.

A moment is read as caption lines with their start times (stored with each chunk at
index time), so placing a link reads nothing more from the store. `focus` scores every
line of a moment, with its next line, by the query terms it holds (weighted by how rare
each is among the moment's lines), takes the best (the earliest of equals), and walks
back to the start of that line's sentence: the link is never later than the words that
matched. Moments whose words do not place them are linked by meaning (`meaning`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from video_research.knowledge import relevance
from video_research.knowledge.store import SearchHit
from video_research.transcripts.line_position import LONG_LINE_SECONDS, lasting, said_at
from video_research.transcripts.records import timestamp_url, video_fields

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import Moment as Result
    from video_research.support.schema_types.common.transcripts import Repeat, Scores

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
    repeats: list[Moment] = field(default_factory=list)
    """Later moments whose best chunk says word for word what this one's does, folded into
    it (`fold_repeats`)."""
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
            starts = cue_starts(props.get("cue_starts"), len(texts), props["start_time"])
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

    def to_result(self, match_time: float | None) -> Result:
        props = self.props
        focus = props["start_time"] if match_time is None else match_time
        # The result speaks for the sentence it links to: its text, span and scores are
        # that chunk's, so its relevance is a function of the query and that chunk alone
        # (never of k, a filter, or the neighbours merged into the moment).
        home = self.home(focus)
        scores: Scores = {
            "fused": round(home.score, 6),
            "relevance": _rounded(home.relevance),
            "cosine": _rounded(None if home.distance is None else 1.0 - home.distance),
            "keyword": _rounded(home.keyword_score),
            "share": _rounded(home.keyword_share),
        }
        own = home.relevance if home.relevance is not None else 0.0
        result: Result = {
            "scores": scores,
            "relevance": own,
            "weak": relevance.is_weak(own),
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
        # a chunk of a file cut short says so (older chunks hold no such property)
        if home.properties.get("complete") is False:
            result["complete"] = False
        if self.repeats:
            result["repeats"] = [repeat.as_repeat() for repeat in self.repeats]
        return result

    def as_repeat(self) -> Repeat:
        """Where a folded moment is said: its video and its best chunk's span."""
        props = self.props
        return {
            "video_id": props["video_id"],
            "video_title": props.get("video_title") or "",
            "start_time": props["start_time"],
            "end_time": props["end_time"],
            "timestamp_url": timestamp_url(
                props["video_id"], props.get("video_url") or "", props["start_time"]
            ),
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def low_content(props: dict[str, Any]) -> bool:
    """A chunk that says almost nothing for its length: fewer than LOW_CONTENT_WORDS_PER_MINUTE
    distinct words a minute ("[MUSIC] you you you" over 12 minutes), or one chunk over
    LOW_CONTENT_SPAN_SECONDS (a transcript without timing, cut as one block). Real speech
    has ~100 distinct words a minute (the eval corpus: 1% of chunks under 42).

    Never on-screen text or a chapter title: a slide says few words a minute by nature (a title shown for a
    minute), and when they are the words asked for it is the answer, not filler; its
    relevance (knowledge.relevance) says whether it matches."""
    if props.get("evidence") in ("screen", "chapter"):
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


def cue_starts(raw: Any, count: int, fallback: float) -> list[float]:
    """A chunk's stored line starts (`cue_starts`, a JSON list), or `fallback` for each of
    its `count` lines where they are missing or do not fit."""
    try:
        starts = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        starts = None
    if not isinstance(starts, list) or len(starts) != count:
        return [fallback] * count
    return [float(value) for value in starts]


def fold_repeats(hits: Iterable[SearchHit], most: int) -> list[Moment]:
    """The first `most` moments of `hits` (best first), each hit one moment, with each hit
    whose chunk says word for word what a better one's says (the same words in the same
    order, case and punctuation aside; the same kind of evidence) folded into that one's
    `repeats`. A line said again, a clip re-uploaded or cut into another video, a
    channel's greeting: one result says it once and lists where else it is said, so the
    repeats do not crowd out what else the search found. Reading stops once `most` are
    kept, so the first k of any larger k are the same moments (a later repeat of one of
    them is listed only by a search that reads that far)."""
    kept: list[Moment] = []
    said: dict[tuple[str, ...], Moment] = {}
    for hit in hits:
        moment = Moment([hit])
        props = hit.properties
        words = (
            props.get("evidence") or "speech",
            *_WORD.findall((props.get("text") or "").lower()),
        )
        if len(words) > 1 and words in said:  # a chunk without words repeats nothing
            said[words].repeats.append(moment)
            continue
        said.setdefault(words, moment)
        kept.append(moment)
        if len(kept) >= most:
            break
    return kept


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
