"""Moment links: a hit's link is the start of the sentence holding the words that matched,
never later than them; merged neighbouring chunks keep the earliest matching time; a
query's length does not multiply pinpointing's work."""

from __future__ import annotations

import json
import re
import time

from hypothesis import example, given
from hypothesis import strategies as st

from video_research.knowledge.store import SearchHit
from video_research.transcripts.search import (
    LOW_CONTENT_WORDS_PER_MINUTE,
    MAX_TERMS,
    Moment,
    TermMatcher,
    focus,
    low_content,
    merge_hits,
    query_terms,
)


def _hit(video: str, first_cue: int, lines: list[tuple[float, str]], score: float) -> SearchHit:
    return SearchHit(
        uuid=f"{video}-{first_cue}",
        collection="TranscriptChunks",
        score=score,
        properties={
            "video_id": video,
            "video_title": "",
            "video_url": "",
            "start_time": lines[0][0],
            "end_time": lines[-1][0] + 3,
            "first_cue": first_cue,
            "text": "\n".join(text for _, text in lines),
            "cue_starts": json.dumps([start for start, _ in lines]),
        },
    )


LINES = [
    (100.0, "So far we have looked at the tides."),
    (104.0, "Now the Rance station in Brittany"),
    (108.0, "has turned the tide into electricity"),
    (112.0, "since nineteen sixty six."),
    (116.0, "Other stations followed much later."),
]


def _focus(lines, query, first_cue=0):
    return focus(Moment([_hit("v", first_cue, lines, 1.0)]), TermMatcher(query_terms(query)))


def test_the_link_is_the_start_of_the_sentence_holding_the_words():
    # "electricity" and "sixty" are in the 3rd and 4th lines; the sentence starts at 104.
    assert _focus(LINES, "electricity since the sixties") == 104.0
    assert _focus(LINES, "stations followed later") == 116.0
    assert _focus(LINES, "station") == 104.0  # the earliest of equal matches
    assert _focus(LINES, "a paraphrase with no shared word") is None


def test_without_punctuation_the_link_moves_back_a_few_lines_at_most():
    unpunctuated = [(float(n * 3), f"words of caption line {n}") for n in range(12)]
    unpunctuated[9] = (27.0, "the turbine spins here")
    found = _focus(unpunctuated, "turbine")
    assert 27.0 - 9.0 <= found <= 27.0


def test_merged_neighbours_keep_the_earliest_matching_time():
    early = [(40.0, "The turbine was tested first in a river."), (44.0, "It worked.")]
    late = [(55.0, "Later the turbine was tested at sea."), (59.0, "It worked again.")]
    moments = merge_hits([_hit("v", 10, late, 0.9), _hit("v", 8, early, 0.8)])
    assert len(moments) == 1 and len(moments[0].hits) == 2
    result = moments[0].to_result(focus(moments[0], TermMatcher(query_terms("turbine tested"))))
    assert result["match_time"] == 40.0
    assert result["start_time"] == 40.0
    assert result["timestamp_url"] == ""  # not a YouTube ID, no URL: no link to make


def test_chunks_indexed_before_line_times_were_stored_link_to_their_start():
    hit = _hit("v", 0, LINES, 1.0)
    del hit.properties["cue_starts"]
    moment = Moment([hit])
    assert focus(moment, TermMatcher(query_terms("electricity"))) == 100.0


@given(
    texts=st.lists(
        st.lists(st.sampled_from(["tide", "moon", "turbine", "the", "a", "sea."]), max_size=6).map(
            " ".join
        ),
        min_size=1,
        max_size=15,
    ),
    query=st.lists(st.sampled_from(["tide", "moon", "turbine", "river"]), min_size=1, max_size=3),
)
def test_a_link_is_never_later_than_the_words_that_matched(texts, query):
    lines = [(float(n * 4), text) for n, text in enumerate(texts)]
    moment = Moment([_hit("v", 0, lines, 1.0)])
    matcher = TermMatcher(query_terms(" ".join(query)))
    found = focus(moment, matcher)
    matched = [start for start, text in lines if matcher.find(text)]
    if not matched:
        assert found is None
    else:
        assert found is not None
        assert any(found <= start for start in matched)
        assert found in [start for start, _ in lines]


def test_a_long_query_is_bounded_and_pinpointing_stays_cheap():
    query = " ".join(f"term{n}" for n in range(5000))
    terms = query_terms(query)
    assert len(terms) == MAX_TERMS
    lines = [(float(n), f"caption {n} with term{n % 40} and more words") for n in range(300)]
    moment = Moment([_hit("v", 0, lines, 1.0)])
    started = time.perf_counter()
    for _ in range(10):
        focus(moment, TermMatcher(query_terms(query)))
    assert time.perf_counter() - started < 1.0


def _regex_find(terms: list[str], text: str) -> set[str]:
    """What the terms' regular expression found (the matcher before it looked words up in a
    dict): a word is a term, or a term plus one of the stemmer's suffixes. (It lowered the
    whole line, so a Turkish İ or a Greek final sigma could differ from the query's own
    lowering; the dict lowers each word as `query_terms` does. The words below have no
    such letter.)"""
    if not terms:
        return set()
    alternatives = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    suffixes = "|".join(re.escape(s) for s in ("'s", "ing", "ed", "es", "s", "ly"))
    pattern = re.compile(rf"(?<!\w)({alternatives})(?:{suffixes})?(?!\w)")
    return set(pattern.findall(text.lower()))


_WORDS = [
    "tide",
    "tides",
    "tiding",
    "moon's",
    "Moon",
    "cos",
    "co",
    "curve",
    "curves",
    "curved",
    "rust",
    "rusted",
    "lying",
    "ly",
    "es",
    "数学",
    "数学家",
    "x2",
    "2",
    "don't",
    "goes",
]


@given(
    query=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6),
    text=st.lists(st.sampled_from(_WORDS + [" ", ", ", "-", "'"]), max_size=20),
)
def test_the_matcher_finds_what_the_terms_regular_expression_found(query, text):
    terms = query_terms(" ".join(query))
    line = " ".join(text)
    assert TermMatcher(terms).find(line) == _regex_find(terms, line)


_CASED = ["Moon", "moon", "MOON", "Tide", "tide", "İstanbul", "i̇stanbul", "ΣΟΦΟΣ", "σοφος"]


@given(
    words=st.lists(st.sampled_from(_WORDS + _CASED + ["you", "[MUSIC]"]), max_size=30),
    span=st.one_of(st.floats(min_value=0.0, max_value=90.0), st.floats(0.0, 700.0)),
)
@example(words=["Moon", "moon", "MOON", "tide", "Tide", "rust"], span=20.0)
def test_low_content_counts_words_only_until_the_rate_is_reached(words, span):
    """The early stop gives what counting every distinct word gave."""
    props = {"start_time": 10.0, "end_time": 10.0 + span, "text": " ".join(words)}
    if span <= 600.0:
        distinct = len(set(map(str.lower, re.findall(r"\w+", props["text"]))))
        expected = distinct / max(max(span, 1.0) / 60.0, 0.5) < LOW_CONTENT_WORDS_PER_MINUTE
        assert low_content(props) == expected
    else:
        assert low_content(props)
