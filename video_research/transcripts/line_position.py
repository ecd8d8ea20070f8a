"""Where in a long caption line the query's words are said.

Most captions last 1-8 s, so the start of the line that holds a query's words is where
they are said. Some transcripts carry one time a minute or so (podcast transcripts whose
lines are whole paragraphs, a Whisper segment that ran on): linking such a line's start
sent a viewer up to a minute early, past everything the link was for. Inside a line
longer than LONG_LINE_SECONDS the link is instead the moment the words are said, read
off their place in the line's text at an even rate of speech (characters, which holds for
Chinese as well as for English: a minute-long line's words are said within ~10 s of it),
moved back to the start of their sentence when the line punctuates one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

LONG_LINE_SECONDS = 15.0
"""A line lasting longer than this is linked inside itself: longer than two windows'
step and than any caption of a subtitle track (at most ~8 s), so ordinary captions link
to their start as before."""
SLOW_CHARS_PER_SECOND = 10.0
SLOW_CJK_CHARS_PER_SECOND = 3.0
"""Slow speech, in characters a second (English is spoken at ~15, Chinese at ~4-5): a line
is taken to last at most its text at this rate, so a short line followed by a pause (a
song, a silent demo) is not read as a long one, and a long line's words are not spread
over the pause after it."""
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
SPAN_PER_TERM_CHARS = 2.0
"""The stretch of the line searched for the query's terms together, per character of
the terms: a quote's words with the stopwords between them."""
SPAN_EXTRA_CHARS = 40
MAX_POSITIONS = 1000
"""Query words of one line weighed at most: a hostile line repeating a query word costs
no more than a long real one (a minute of speech holds ~150 words)."""
SENTENCE_BACK_CHARS = 200
"""How far back from the matched words a sentence's start is looked for."""
_SENTENCE_END = re.compile(r"[.!?…。！？]['\")\]]*\s+|[。！？]")


def lasting(text: str, start: float, next_start: float) -> float:
    """How long a line from `start` is spoken: until the next line starts, but no longer
    than its text takes at a slow rate (SLOW_CHARS_PER_SECOND)."""
    chars = len(text.strip())
    cjk = len(_CJK.findall(text))
    rate = SLOW_CJK_CHARS_PER_SECOND if 2 * cjk >= chars else SLOW_CHARS_PER_SECOND
    return max(0.0, min(next_start - start, chars / rate))


def said_at(
    text: str,
    start: float,
    end: float,
    positions: Sequence[tuple[int, str]],
    weight: Mapping[str, float],
) -> float:
    """The second at which the query's words are said in a line from `start` to `end`
    (`positions`: (character offset, term) of each word of the line that is a query
    term, in order; `weight`: each term's weight). The stretch of the line holding the
    most weight of distinct terms wins; of equals, the tightest (a term said again before
    the quote makes a looser stretch of the same terms), then the earliest; then its
    sentence's start."""
    if not positions or not text:
        return start
    positions = positions[:MAX_POSITIONS]
    span = SPAN_EXTRA_CHARS + SPAN_PER_TERM_CHARS * sum(len(term) for term in weight)
    best: tuple[float, int, int] | None = None
    for at, (offset, _) in enumerate(positions):
        seen: set[str] = set()
        reach = offset
        for place, term in positions[at:]:
            if place - offset > span:
                break
            if term not in seen:
                seen.add(term)
                reach = place
        key = (-sum(weight.get(term, 0.0) for term in seen), reach - offset, offset)
        if best is None or key < best:
            best = key
    best_at = best[2] if best else positions[0][0]
    sentence = best_at
    back = max(0, best_at - SENTENCE_BACK_CHARS)
    ends = list(_SENTENCE_END.finditer(text, back, best_at))
    if ends:
        sentence = ends[-1].end()
    elif back == 0 and _SENTENCE_END.search(text + " "):
        sentence = 0  # punctuated, and no sentence ends before the words: the line's first
    share = sentence / len(text)
    return round(start + share * (end - start), 2)
