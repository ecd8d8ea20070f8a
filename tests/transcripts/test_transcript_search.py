"""Moment links: a hit's link is the start of the sentence holding the words that matched,
never later than them; merged neighbouring chunks keep the earliest matching time; a
query's length does not multiply pinpointing's work."""

from __future__ import annotations

import math
import re
import time

from hypothesis import example, given
from hypothesis import strategies as st

from video_research.knowledge.store import SearchHit
from video_research.transcripts.chunker import chunk_cues
from video_research.transcripts.indexer import CHUNKS, VideoInfo, chunk_properties, chunk_uuid
from video_research.transcripts.moments import (
    LOW_CONTENT_WORDS_PER_MINUTE,
    MAX_TERMS,
    Moment,
    TermMatcher,
    focus,
    line_start,
    low_content,
    query_terms,
)
from video_research.transcripts.parsers import Cue
from video_research.transcripts.sources import Transcript


def _hit(video: str, lines: list[tuple[float, str]], score: float) -> SearchHit:
    """A hit on a chunk of `lines` ((start, text), one cue each), its properties built by
    the indexer itself (`chunk_properties`, what index_transcript stores) from the chunk
    the chunker makes of them: one chunk, with no token, duration or pause limit to cut it."""
    starts = [start for start, _ in lines]
    ends = [*starts[1:], starts[-1] + 3]
    cues = [Cue(start, end, text) for (start, text), end in zip(lines, ends, strict=True)]
    chunks, kept = chunk_cues(
        cues, target_tokens=10**9, overlap_tokens=0, max_seconds=math.inf, pause_seconds=math.inf
    )
    assert len(chunks) == 1
    transcript = Transcript(video_id=video, cues=kept, language="en", source="file")
    (properties,) = chunk_properties(VideoInfo(video), transcript, chunks, kept)
    return SearchHit(
        uuid=chunk_uuid(video, chunks[0].index),
        collection=CHUNKS,
        score=score,
        properties=dict(properties),
    )


LINES = [
    (100.0, "So far we have looked at the tides."),
    (104.0, "Now the Rance station in Brittany"),
    (108.0, "has turned the tide into electricity"),
    (112.0, "since nineteen sixty six."),
    (116.0, "Other stations followed much later."),
]


def _focus(lines, query):
    return focus(Moment([_hit("v", lines, 1.0)]), TermMatcher(query_terms(query)))


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


PODCAST_LINE = (
    "Thanks for having me. We started the company in a garage in 2013 and grew for two "
    "years before the first round. The hardest part was hiring the first engineers, "
    "because nobody had heard of us. Later we moved the whole team to Austin, which "
    "changed how we worked."
)
"""One line of a transcript that carries one time a minute (podcast transcripts do)."""


def test_a_long_line_links_where_its_words_are_said():
    # 20 s of speech in one line (13 characters a second): the sentence holding the words
    # starts at ~43% of its characters, so it is said ~8.5 s in.
    lines = [(600.0, PODCAST_LINE), (620.0, "Next question.")]
    found = _focus(lines, "hiring the first engineers because nobody had heard of us")
    share = PODCAST_LINE.index("The hardest part") / len(PODCAST_LINE)
    assert found == round(600.0 + share * 20.0, 2)  # its sentence's start, not "hiring"
    # Chinese, spaced by phrase and unpunctuated (~4 characters a second): the phrase's place.
    chinese = (
        "我们先聊聊创业的事情 当时就是在车库里面 大家一起写代码 每天都很晚才回家 "
        "第一轮融资之前我们做了两年 后来我们搬到了奥斯汀 整个团队的工作方式都变了 "
        "我觉得这是最重要的一个决定"
    )
    found = _focus([(0.0, chinese), (25.0, "下一个问题")], "后来我们搬到了奥斯汀")
    assert found == round(25.0 * chinese.index("后来") / len(chinese), 2)
    # An ordinary caption line still links to its sentence's start.
    assert _focus(LINES, "electricity since the sixties") == 104.0


def test_a_long_line_links_to_its_start_when_its_first_sentence_holds_the_words():
    """The sentence that begins a line begins where the line does: a punctuated line with
    no sentence end before the words links to its start (speech cut into sentences that
    run past 15 s, or a podcast line's first sentence)."""
    lines = [(600.0, PODCAST_LINE), (620.0, "Next question.")]
    assert _focus(lines, "thanks for having me") == 600.0
    started = _focus(lines, "started the company in a garage in 2013")  # the second sentence
    assert started == round(600.0 + 20.0 * PODCAST_LINE.index("We started") / len(PODCAST_LINE), 2)
    run_on = "so we kept going and the turbine spun faster and faster until it " * 3
    found = _focus([(0.0, run_on + "broke."), (30.0, "Then what?")], "until it broke")
    assert found == 0.0


def test_a_hostile_long_line_costs_little():
    """One line repeating the query's words for minutes: linking stays bounded."""
    line = "turbine spins " * 20_000
    started = time.perf_counter()
    found = _focus([(0.0, line), (3000.0, "end")], "turbine spins")
    assert 0.0 <= found <= 3000.0 and time.perf_counter() - started < 2.0


def test_a_short_line_before_a_pause_links_to_its_start():
    """A line that starts 40 s before the next because a song follows it is not a long
    line: its few words are said at its start."""
    lines = [(300.0, "And that is how the turbine works."), (340.0, "Welcome back.")]
    assert _focus(lines, "how the turbine works") == 300.0


def test_a_link_inside_a_long_line_is_not_moved_to_a_window_at_its_start():
    """A window of a long line starts where the line starts: it is no finer a place for
    the words than the link inside the line."""
    moment = Moment([_hit("v", [(600.0, PODCAST_LINE), (660.0, "Next question.")], 1.0)])
    assert line_start(moment, 625.0) == 600.0
    assert line_start(moment, 661.0) == 660.0
    assert line_start(moment, 700.0) == 700.0  # past the moment: no line holds it


def test_chunks_indexed_before_line_times_were_stored_link_to_their_start():
    hit = _hit("v", LINES, 1.0)
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
    moment = Moment([_hit("v", lines, 1.0)])
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
    moment = Moment([_hit("v", lines, 1.0)])
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


async def test_a_podcast_transcript_with_minute_long_lines_links_inside_them(tmp_path):
    """Through the tools, from a caption file shaped like a podcast's (one time a minute):
    the hit's link is where its sentence sits in the line, not the line's start."""
    from tests.calls import call_ok

    said = [
        "Welcome back to the show. Today we talk about building hardware in a small town, "
        "and why the supply chain decided almost everything we did in the first two years.",
        "We started the company in a garage in 2013. The hardest part was hiring the first "
        "engineers, because nobody had heard of us and we could not pay what the big firms "
        "paid. Later we moved the whole team to Austin, which changed how we worked.",
        "Looking back, I would have raised money a year earlier and spent it on testing "
        "rigs, not on offices. That is the one thing I tell every founder who asks me.",
    ]
    # 20 s a line, ~12 characters a second: ordinary speech, one time per paragraph.
    blocks = [
        f"{n + 1}\n00:00:{20 * n:02d},000 --> 00:00:{20 * n + 19:02d},000\n{text}\n"
        for n, text in enumerate(said)
    ]
    (tmp_path / "Hardware founders [pOdCaSt0001].en.srt").write_text("\n".join(blocks))
    await call_ok("index_transcript_files", {"path": str(tmp_path), "fetch_metadata": False})
    result = await call_ok(
        "semantic_search_transcripts",
        {"query": "hiring the first engineers because nobody had heard of us", "auto_index": False},
    )
    top = result["results"][0]
    assert top["video_id"] == "pOdCaSt0001"
    # Its sentence starts at its share of the line's characters, the line lasting until
    # the next one starts: ~4 s into the line at 20 s, not at 20 s.
    share = said[1].index("The hardest part") / len(said[1])
    assert abs(top["match_time"] - (20.0 + 20.0 * share)) < 0.5
    assert top["match_time"] > 22.0
