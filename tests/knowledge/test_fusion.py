"""Query-adaptive hybrid weighting (knowledge.fusion): names and numbers lean on keywords."""

from __future__ import annotations

import math

import pytest

from video_research.knowledge import fusion
from video_research.knowledge.keyword_tokens import (
    content_terms,
    count_terms,
    matched_share,
    query_tokens,
)


async def _insert_titles(store, titles: list[str], vectors) -> None:
    """`titles` as videos v0, v1, ... with their `vectors`, in the store's VideoMetadata."""
    await store.insert_many(
        "VideoMetadata",
        [{"video_id": f"v{i}", "title": t} for i, t in enumerate(titles)],
        vectors=vectors,
    )


@pytest.mark.parametrize(
    "query,expected",
    [
        ("why does the proof need a cycle", 0),
        ("Euler's formula for planar graphs", 0),  # the first word's capital says nothing
        ("n = 6, d = 71 gives the Maurer rose", 3),
        ("pipes.show and bird.show leave the game logic", 2),
        ("then Monty Hall reveals a goat", 2),
        ("用 Perlin 噪声调整 n 和 d", 1),
        ("为什么切面包之前要先让它冷却", 0),
    ],
)
def test_specific_tokens(query, expected):
    assert fusion.specific_tokens(query) == expected


def test_alpha_leans_on_keywords_with_names_and_stays_between_floor_and_base():
    assert fusion.query_alpha("what makes a curve continuous") == fusion.BASE
    assert fusion.query_alpha("then Monty Hall reveals a goat") == pytest.approx(fusion.BASE - 0.2)
    many = "Claude Gemini Grok 3 R1 o1 Pro GPT-4 2024"
    assert fusion.query_alpha(many) == fusion.FLOOR


@pytest.mark.parametrize(
    "query,text,share",
    [
        (
            "make a guess at how adding complex numbers might work",
            "Make a guess at how adding complex numbers might work!",
            1.0,
        ),
        ("adding complex numbers", "multiplying complex numbers", 2 / 3),
        # Latin folded; CJK in bigrams: the lone 用 is not a bigram of 我们用
        ("用 Perlin 噪声", "我们用 PERLIN 噪声来画山", 2 / 3),
        ("", "anything", 0.0),
    ],
)
def test_matched_share_counts_the_query_words_a_text_holds(query, text, share):
    assert matched_share(query, text) == pytest.approx(share)


def test_a_query_leans_on_keywords_only_when_the_best_keyword_hit_holds_its_words():
    quote = "then Monty Hall reveals a goat behind one door"
    said = "And then Monty Hall reveals a goat behind one door you did not pick."
    share = matched_share(quote, said)
    assert fusion.keyword_match_alpha(0.75, share) == fusion.KEYWORD_MATCH_ALPHA
    paraphrase = "the host opens an empty door on purpose"
    assert fusion.keyword_match_alpha(0.75, matched_share(paraphrase, said)) == 0.75
    assert fusion.keyword_match_alpha(0.75, None) == 0.75  # no keyword hit
    # Never raised: a query already leaning on keywords keeps its weight.
    assert fusion.keyword_match_alpha(0.1, share) == 0.1


def test_a_long_note_leans_on_keywords_when_its_best_hit_holds_eight_of_its_words():
    """A notes-style query (the speaker's words, stopwords dropped) holds more words than
    its passage: ten of seventeen is no chance match, though under KEYWORD_MATCH_SHARE.
    A paraphrase holding half of its few words is."""
    note = (
        "correct answer equal none others necessarily true let's walk through case okay "
        "comes down choosing option carefully here"
    )
    said = (
        "So the correct answer is that none of the others is necessarily true. Let's walk "
        "through each case, one at a time."
    )
    assert 0.5 <= matched_share(note, said) < fusion.KEYWORD_MATCH_SHARE
    assert fusion.keyword_match(note, said)
    model = "local:use-multilingual"
    assert fusion.adapted_alpha(note, model, [said]) == fusion.KEYWORD_MATCH_ALPHA
    paraphrase = "the host opens an empty door on purpose"
    door = "the host opens one door, and there is a goat"
    assert matched_share(paraphrase, door) >= fusion.LONG_MATCH_SHARE
    assert not fusion.keyword_match(paraphrase, door)
    assert fusion.adapted_alpha(paraphrase, model, [door]) == fusion.MODEL_BASE[model]
    # Eight words of a thirty-word query is not what it asked for.
    long = note + " " + " ".join(f"word{n}" for n in range(20))
    assert not fusion.keyword_match(long, said)


def test_no_name_counts_when_the_keyword_side_did_not_find_the_query():
    """A Spanish sentence asked of English lectures shares a digit and a capitalised word
    with a passage by chance: those names do not lower its weight, nor keep its keyword
    side min-max. A passage holding the query's words keeps its names counted."""
    spanish = "Aquí la matriz con columnas 1,1 y 2,-1 codifica una transformación del Plano"
    found = ["the determinant is 2", "columns 1 and 1"]
    assert fusion.specific_tokens(spanish, "\n".join(found)) == 4  # 1, 1, 2, 1
    assert matched_share(spanish, found[0]) < fusion.NO_MATCH_SHARE
    model = "local:use-multilingual"
    assert fusion.names_held(spanish, model, found) == ""
    assert fusion.adapted_alpha(spanish, model, found) == fusion.MODEL_BASE[model]
    assert fusion.calibrated_keywords(spanish, fusion.names_held(spanish, model, found))
    named = "then Monty Hall reveals a goat"
    held = ["Monty Hall reveals a goat behind door three", "a goat"]
    assert fusion.names_held(named, model, held) == "\n".join(held)
    assert fusion.names_held(named, model, []) == ""
    # An English-only vector side cannot read the Spanish sentence: its names still count.
    minilm = "local:all-MiniLM-L6-v2"
    assert fusion.names_held(spanish, minilm, found) == "\n".join(found)
    assert fusion.adapted_alpha(spanish, minilm, found) == fusion.FLOOR


async def _titles_store():
    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()
    rng = np.random.default_rng(0)
    await store.insert_many(
        "VideoMetadata",
        [{"video_id": f"v{i}", "title": f"talk {i} about Grok 3"} for i in range(5)],
        vectors=rng.standard_normal((5, 384)),
    )
    return store, rng.standard_normal(384)


async def test_hybrid_without_alpha_uses_the_query_weight(services):
    store, query = await _titles_store()
    # No title holds most of these words: the weight is the query's own.
    words = "Grok 3 reasoning benchmark results compared"
    adaptive = await store.hybrid("VideoMetadata", words, alpha=None, vector=query)
    fixed = await store.hybrid(
        "VideoMetadata", words, alpha=fusion.query_alpha(words), vector=query
    )
    assert [(h.uuid, h.score) for h in adaptive] == [(h.uuid, h.score) for h in fixed]
    assert fusion.query_alpha(words) > fusion.KEYWORD_MATCH_ALPHA


async def test_hybrid_without_alpha_leans_on_keywords_when_a_hit_holds_the_query(services):
    store, query = await _titles_store()
    adaptive = await store.hybrid("VideoMetadata", "talk 3 about Grok 3", alpha=None, vector=query)
    keywords = await store.hybrid(
        "VideoMetadata", "talk 3 about Grok 3", alpha=fusion.KEYWORD_MATCH_ALPHA, vector=query
    )
    own = await store.hybrid(
        "VideoMetadata",
        "talk 3 about Grok 3",
        alpha=fusion.query_alpha("talk 3 about Grok 3"),
        vector=query,
    )
    assert [(h.uuid, h.score) for h in adaptive] == [(h.uuid, h.score) for h in keywords]
    assert [(h.uuid, h.score) for h in adaptive] != [(h.uuid, h.score) for h in own]


def test_a_calibrated_keyword_side_keeps_a_weak_best_hit_weak():
    """Min-max gives the best keyword hit 1.0 however weak; a calibrated side keeps its
    0..1 score, so a chance match of a paraphrase's words does not outrank what the
    vector side found."""
    from video_research.knowledge.models import relative_score_fusion

    keyword = [(1, 0.2), (2, 0.1)]  # both weak: a few of the query's words
    vector = [(3, 0.9), (1, 0.6), (2, 0.4)]
    plain = relative_score_fusion([(keyword, 0.5), (vector, 0.5)])
    assert plain[0][0] == 1  # the weak keyword hit, normalised to 1.0, wins
    fused = relative_score_fusion([(keyword, 0.5), (vector, 0.5)], calibrated=[True])
    assert fused[0][0] == 3
    assert dict(fused)[1] == pytest.approx(0.5 * 0.2 + 0.5 * 0.4)
    # a strong hit (scores over 1 are capped) still counts in full
    strong = relative_score_fusion([([(1, 1.4)], 0.5), (vector, 0.5)], calibrated=[True])
    assert strong[0][0] == 1


def test_only_queries_that_name_nothing_use_the_calibrated_keyword_side():
    assert fusion.calibrated_keywords("why does the proof need a cycle")
    assert not fusion.calibrated_keywords("then Monty Hall reveals a goat")
    assert not fusion.calibrated_keywords("用 Perlin 噪声调整 n 和 d")


# ----------------------------------------------------------------------------- quotes

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from video_research.knowledge import keyword_tokens as kt  # noqa: E402


@pytest.mark.parametrize(
    "query,text,quoted",
    [
        # every word, in order, in a longer passage: a quote
        (
            "For instance, Facebook stores an enormous graph where",
            "Right. For instance, facebook stores an enormous graph where vertices are people",
            True,
        ),
        # a word changed near the end: a run of 12 of its 15 words is still a quote
        (
            "the derivative of e to the x is itself which is why it shows up",
            "so the derivative of e to the x is itself, which is why it turns up",
            True,
        ),
        # the same words out of order: no run
        (
            "graph enormous an stores Facebook instance for",
            "For instance, Facebook stores an enormous graph",
            False,
        ),
        # the quote runs past the passage's end: the part inside is most of it
        ("要看到这一点，请注意，从根顶点开始", "……要看到这一点，请注意，从根", True),
        # too short to quote anything
        ("the area of a circle", "the area of a circle is pi r squared", False),
    ],
)
def test_a_query_quotes_a_passage_holding_most_of_its_words_as_one_run(query, text, quoted):
    assert kt.quotes(text, kt.quote_tokens(query)) is quoted


def _longest_run_by_every_pair(text: str, run: tuple[str, ...]) -> int:
    have, best = list(kt.tokens(text)), 0
    for i in range(len(run)):
        for j in range(len(have)):
            length = 0
            while i + length < len(run) and j + length < len(have):
                if run[i + length] != have[j + length]:
                    break
                length += 1
            best = max(best, length)
    return best


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d", "é", "量子"]), max_size=12),
    st.lists(st.sampled_from(["a", "b", "c", "d", "e", "量子", "!"]), max_size=30),
)
@example(["a", "a", "b"], ["a", "a", "a", "b"])
def test_longest_run_is_the_longest_common_run_of_tokens(query_words, text_words):
    run = tuple(kt.tokens(" ".join(query_words)))
    text = " ".join(text_words)
    assert kt.longest_run(text, run) == _longest_run_by_every_pair(text, run)


def test_quotes_go_first_in_keyword_order_and_the_rest_keep_their_ratios():
    fused = [("a", 1.0), ("b", 0.8), ("c", 0.5), ("d", 0.4)]
    ranked = fusion.quotes_first(fused, ["c", "x", "d"], {"d", "c"})
    assert [key for key, _ in ranked] == ["c", "d", "a", "b"]
    scores = dict(ranked)
    assert scores["c"] == 1.0
    assert scores["b"] / scores["a"] == pytest.approx(0.8)
    assert fusion.quotes_first(fused, ["a"], set()) == fused


async def _passages_store():
    """A short title that holds most of a quote's words, a long one that holds all of them
    in order; the vector side prefers the short one."""
    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((6, 384))
    titles = [
        "fourier series circle rotating arrows draws",
        "and now watch how a fourier series draws a circle with rotating arrows stacked "
        "tip to tail, each spinning at its own constant frequency around the plane",
        *(f"talk {i} about something else entirely" for i in range(4)),
    ]
    await _insert_titles(store, titles, vectors)
    return store, vectors[0]


async def test_the_default_search_puts_the_passage_a_query_quotes_first(services):
    store, near_the_short_one = await _passages_store()
    quote = "a fourier series draws a circle with rotating arrows"
    adaptive = await store.hybrid("VideoMetadata", quote, alpha=None, vector=near_the_short_one)
    assert adaptive[0].properties["video_id"] == "v1"
    assert adaptive[0].score == 1.0
    # The same weight without the rule ranks the short title first: BM25's length
    # normalisation and the vector side both favour it.
    fixed = await store.hybrid(
        "VideoMetadata", quote, alpha=fusion.KEYWORD_MATCH_ALPHA, vector=near_the_short_one
    )
    assert fixed[0].properties["video_id"] == "v0"
    keywords = await store.hybrid("VideoMetadata", quote, alpha=0.0, vector=near_the_short_one)
    assert keywords[0].properties["video_id"] == "v0"


async def _crowded_store(copies: int = 0):
    """The passage a quote was taken from, below 40 short titles that hold the quote's
    rare words out of order (BM25 ranks each above it) and `copies` more passages that say
    the quote word for word; the vector side prefers a title."""
    import itertools

    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()
    words = ["fourier", "series", "draws", "circle", "rotating", "arrows"]
    titles = [
        "and now watch how a fourier series draws a circle with rotating arrows stacked "
        "tip to tail, each spinning at its own constant frequency around the plane",
        *(" ".join(order) for order in itertools.islice(itertools.permutations(words), 1, 41)),
        *(f"copy {n}: a fourier series draws a circle with rotating arrows" for n in range(copies)),
    ]
    vectors = np.random.default_rng(2).standard_normal((len(titles), 384))
    await _insert_titles(store, titles, vectors)
    return store, vectors[5]


async def test_a_quote_below_the_keyword_sides_first_hits_is_found_word_for_word(
    services, monkeypatch
):
    """Among many passages holding a quote's words, the one it was taken from can be
    below the keyword side's first QUOTE_DEPTH; the FTS5 phrase lookup finds it."""
    from video_research.knowledge.backends import sqlite_store

    store, near_a_title = await _crowded_store()
    quote = "a fourier series draws a circle with rotating arrows"
    keywords = await store.hybrid("VideoMetadata", quote, alpha=0.0, limit=50)
    assert [h.properties["video_id"] for h in keywords].index("v0") >= fusion.QUOTE_DEPTH
    adaptive = await store.hybrid("VideoMetadata", quote, alpha=None, vector=near_a_title)
    assert adaptive[0].properties["video_id"] == "v0"
    # a filter holds for the passages the phrase finds too
    from video_research.knowledge.filters import Filter

    only = await store.hybrid(
        "VideoMetadata", quote, alpha=None, vector=near_a_title, where=Filter.eq("video_id", "v3")
    )
    assert [h.properties["video_id"] for h in only] == ["v3"]
    # Without the phrase lookup (no passage count is few enough), a title goes first.
    monkeypatch.setattr(sqlite_store, "PHRASE_MOST", 0)
    without = await store.hybrid("VideoMetadata", quote, alpha=None, vector=near_a_title)
    assert without[0].properties["video_id"] != "v0"


async def test_a_phrase_said_in_many_passages_is_a_saying_not_a_quote(services, monkeypatch):
    from video_research.knowledge.backends import fts

    store, near_a_title = await _crowded_store(copies=fusion.PHRASE_MOST)
    quote = "a fourier series draws a circle with rotating arrows"
    hits = await store.hybrid("VideoMetadata", quote, alpha=None, vector=near_a_title, limit=5)
    assert "v0" not in [h.properties["video_id"] for h in hits]
    with store._transaction(immediate=False) as conn:
        assert fts.phrase_rows(conn, "VideoMetadata", quote, None, fusion.PHRASE_MOST) == []
        held = fts.phrase_rows(conn, "VideoMetadata", quote, None, fusion.PHRASE_MOST + 1)
        assert len(held) == fusion.PHRASE_MOST + 1
        # a lookup past its work is given up, not waited for, however idle the machine
        assert len(fts.phrase_rows(conn, "VideoMetadata", quote, None, 99)) == 6
        monkeypatch.setattr(fts, "PHRASE_STEPS", 1)
        monkeypatch.setattr(fts, "PHRASE_WORK", 3)
        assert fts.phrase_rows(conn, "VideoMetadata", quote, None, 99) == []
        # and past its time, whatever work is left (a cold disk, a starved process)
        monkeypatch.setattr(fts, "PHRASE_WORK", 10**9)
        monkeypatch.setattr(fts, "PHRASE_SECONDS", -1.0)
        assert fts.phrase_rows(conn, "VideoMetadata", quote, None, 99) == []


def test_only_the_names_the_keyword_side_found_lean_on_keywords():
    """German capitalises every noun: as names they sank a German question's weight to the
    floor, though no English passage holds them. Counted where the keyword side's best
    hits hold them, they leave it at the base; a name those hits hold still counts."""
    german = "Und obwohl es viele Möglichkeiten gibt, eine Exponentialfunktion zu schreiben"
    found = ["there are many ways to write an exponential function", "e to the x"]
    assert fusion.specific_tokens(german) == 2
    assert fusion.specific_tokens(german, "\n".join(found)) == 0
    model = "local:use-multilingual"
    assert fusion.query_alpha(german, model) == pytest.approx(0.55)
    assert fusion.adapted_alpha(german, model, found) == fusion.MODEL_BASE[model]
    assert fusion.calibrated_keywords(german, "\n".join(found))
    named = "then Monty Hall reveals a goat"
    held = ["Monty Hall is a game show host", "a goat behind a door"]
    assert fusion.adapted_alpha(named, model, held) == pytest.approx(0.55)
    # the third best hit counts, the fourth does not
    assert fusion.adapted_alpha(named, model, ["a", "b", "Monty Hall"]) == pytest.approx(0.55)
    assert fusion.adapted_alpha(named, model, ["a", "b", "c", "Monty Hall"]) == 0.75
    # names inside Chinese: the Latin words
    assert fusion.specific_tokens("用 Perlin 噪声调整", "perlin noise") == 1
    assert fusion.specific_tokens("用 Perlin 噪声调整", "simplex noise") == 0


@pytest.mark.parametrize(
    "query,text,held",
    [
        # a note's words out of order, six of its seven: most of them
        (
            "places JavaScript index html running server here",
            "the server is running, so here the index.html places our JavaScript",
            True,
        ),
        # half of its words: a passage about the same thing
        ("places JavaScript index html running server", "run JavaScript on a server", False),
        # five words: too few to tell a note from a chance match
        ("JavaScript index html running server", "index html JavaScript running server", False),
        # stopwords are not what a note asked for
        (
            "so what we are going to do is that we will",
            "so what we are going to do now is that we will see",
            False,
        ),
    ],
)
def test_a_passage_holds_most_of_a_notes_words_in_any_order(query, text, held):
    assert kt.holds_most_words(text, kt.quote_tokens(query)) is held


def test_a_note_counts_only_when_the_query_quotes_nothing():
    note = "places JavaScript index html running server"
    texts = {
        "quoted": "we said places JavaScript index html running server yesterday",
        "scattered": "server running: index html places the JavaScript",
    }
    run = kt.quote_tokens(note)
    assert fusion.asked_for(texts, run) == {"quoted"}
    assert fusion.asked_for({"scattered": texts["scattered"]}, run) == {"scattered"}
    # what the store found by its phrase lookup counts as quoted
    assert fusion.asked_for({"scattered": texts["scattered"]}, run, ["elsewhere"]) == {"elsewhere"}
    assert fusion.asked_for(texts, ()) == set()


async def test_the_default_search_puts_the_passage_holding_a_notes_words_first(
    services, monkeypatch
):
    """A note's words, out of order, in a long passage that holds six of its eight,
    against a short one nearer in meaning that holds four, which BM25's length
    normalisation ranks first too: the note asked for the long one."""
    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()
    vectors = np.random.default_rng(3).standard_normal((6, 384))
    filler = " ".join(f"word{i}" for i in range(60))
    titles = [
        f"so the server is running now, {filler}, and here the index.html file places "
        f"all of the JavaScript we wrote, {filler}",
        "JavaScript on a server, page by page, script by script",
        *(f"talk {i} about something else entirely" for i in range(4)),
    ]
    await _insert_titles(store, titles, vectors)
    note = "places JavaScript index html running server page script"
    keywords = await store.hybrid("VideoMetadata", note, alpha=0.0)
    assert keywords[0].properties["video_id"] == "v1"
    hits = await store.hybrid("VideoMetadata", note, alpha=None, vector=vectors[1])
    assert hits[0].properties["video_id"] == "v0"
    monkeypatch.setattr(kt, "NOTE_SHARE", 1.01)  # no passage holds most of its words
    hits = await store.hybrid("VideoMetadata", note, alpha=None, vector=vectors[1])
    assert hits[0].properties["video_id"] == "v1"


@pytest.mark.parametrize(
    "query,text,credited",
    [
        # a paraphrase's one word, found by chance in a passage about something else
        ("after dozens of rounds, changing my choice won", "the first rounds of a game", False),
        ("after dozens of rounds, changing my choice won", "my choice won after rounds", True),
        ("tides rise and fall", "the tides fall and rise", True),  # all of a short query's words
        ("the tides rise and fall", "tides rise", False),
        ("tides rising", "the tides are rising", True),
        # nothing but stopwords: the keyword side asked with them, and they count alike
        ("why does it", "it does", False),
        ("why does it", "why does it", True),
    ],
)
def test_a_keyword_hit_earns_credit_with_three_of_the_querys_words(query, text, credited):
    terms = kt.content_terms(kt.query_tokens(query))
    assert fusion.keyword_credit(terms, text) is credited


def _without_chance_matches(keyword, vector, weight, texts, terms):
    """The fusion as if the keyword side had not returned the hits without credit."""
    from video_research.knowledge.models import relative_score_fusion

    kept = [(key, score) for key, score in keyword if fusion.keyword_credit(terms, texts[key])]
    return relative_score_fusion([(kept, weight), (vector, 1.0 - weight)], calibrated=[True])


@settings(max_examples=60)
@given(
    st.lists(st.tuples(st.floats(0.0, 1.2), st.integers(0, 3)), min_size=1, max_size=12),
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12),
    st.floats(0.05, 0.95),
    st.integers(1, 6),
)
@example([(0.2, 1), (0.9, 3)], [0.9, 0.89], 0.25, 1)
def test_taking_credit_from_chance_matches_settles_the_head_exactly(keyword, vector, weight, head):
    """Only the first `head` are read and settled: they are those of a fusion whose keyword
    side never returned the hits without credit, in the same order."""
    from video_research.knowledge.models import relative_score_fusion

    terms = ["alpha", "beta", "gamma", "delta"]
    texts = {f"k{i}": " ".join(terms[:held]) for i, (_, held) in enumerate(keyword)}
    keyword_side = [(f"k{i}", score) for i, (score, _) in enumerate(keyword)]
    # the vector side finds some of the keyword hits too, and passages of its own
    vector_side = [(f"k{i}" if i % 2 else f"v{i}", score) for i, score in enumerate(vector)]
    texts |= {key: "" for key, _ in vector_side if key not in texts}
    fused = relative_score_fusion(
        [(keyword_side, weight), (vector_side, 1.0 - weight)], calibrated=[True]
    )
    asked: list[str] = []

    def read(keys):
        asked.extend(keys)
        return {key: texts[key] for key in keys}

    settled = fusion.chance_matches_down(fused, dict(keyword_side), weight, read, terms, head)
    expected = _without_chance_matches(keyword_side, vector_side, weight, texts, terms)
    got = dict(settled)
    want = dict(expected)
    assert [round(got[key], 6) for key, _ in settled[:head]] == sorted(
        (round(want.get(key, 0.0), 6) for key in got), reverse=True
    )[:head]
    assert len(asked) == len(set(asked))  # each hit read once


async def test_a_chance_word_does_not_lift_a_passage_over_what_the_vectors_found(
    services, monkeypatch
):
    """A question sharing one word ("day") with a passage about something else: on the
    calibrated scale that word still scores, and lifted the passage over the one the vector
    side ranked just above it."""
    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()
    rng = np.random.default_rng(5)
    query = rng.standard_normal(384)
    query /= np.linalg.norm(query)
    near = [query + rng.standard_normal(384) * scale for scale in (0.02, 0.025)]
    titles = [
        "the moon pulls the oceans toward it",
        "every day we upload a new video",
        *(f"talk {i} about something else entirely" for i in range(4)),
    ]
    await _insert_titles(store, titles, np.vstack([*near, rng.standard_normal((4, 384))]))
    question = "why do the tides rise and fall twice a day"
    assert fusion.calibrated_keywords(question)
    hits = await store.hybrid("VideoMetadata", question, alpha=None, vector=query)
    assert [h.properties["video_id"] for h in hits[:2]] == ["v0", "v1"]
    monkeypatch.setattr(fusion, "KEYWORD_CREDIT_WORDS", 0)  # every hit earns credit
    hits = await store.hybrid("VideoMetadata", question, alpha=None, vector=query)
    assert [h.properties["video_id"] for h in hits[:2]] == ["v1", "v0"]


def _random_query(seed: int):
    """A seeded generator and a random unit query vector drawn from it (384 dimensions, the
    tests' model): the titles' vectors are drawn next, so each test's store is the same
    every run."""
    import numpy as np

    rng = np.random.default_rng(seed)
    query = rng.standard_normal(384)
    return rng, query / np.linalg.norm(query)


CHAT_NOTE = "god half hours afternoon main project get right now going"
"""A note of chat (a large eval corpus query: the speaker's content words): its passage
holds four of its nine words, the rare ones."""


def test_a_strong_keyword_hit_leans_on_keywords_whatever_share_of_the_query_it_holds():
    said = "and then the main project this afternoon, for half an hour"
    assert matched_share(CHAT_NOTE, said) < fusion.LONG_MATCH_SHARE
    assert not fusion.keyword_match(CHAT_NOTE, said)
    model = "local:use-multilingual"
    base = fusion.MODEL_BASE[model]
    assert fusion.adapted_alpha(CHAT_NOTE, model, [said]) == base  # Weaviate: no score
    # 0.72 and the next hit 0.45: the calibrated scores the large corpus gave the two
    assert fusion.adapted_alpha(CHAT_NOTE, model, [said], 0.72) == fusion.KEYWORD_MATCH_ALPHA
    assert fusion.adapted_alpha(CHAT_NOTE, model, [said], 0.45) == base
    # uncapped (a passage holding the words twice) counts as 1
    assert fusion.adapted_alpha(CHAT_NOTE, model, [said], 1.4) == fusion.KEYWORD_MATCH_ALPHA
    # never raised
    assert fusion.adapted_alpha("Grok 3 o1 Pro R1 Claude", model, ["x"], 0.9) <= 0.2


async def test_the_default_search_leans_on_a_keyword_hit_holding_the_rare_words(
    services, monkeypatch
):
    """The chat note's passage holds its rare words; the other titles hold its common ones
    ("going right now", in all of them: worth next to nothing) and one is nearest the
    query's vector. The default search ranks the passage first because its calibrated
    keyword score is strong, not because of the share of words it holds."""
    from video_research.knowledge.store import get_store

    store = await get_store()
    rng, query = _random_query(7)
    titles = [
        "the main project this afternoon takes half the hours we have",
        *(f"going right now to get something done, episode {i}" for i in range(29)),
    ]
    vectors = rng.standard_normal((len(titles), 384))
    vectors[1] = query + rng.standard_normal(384) * 0.02
    await _insert_titles(store, titles, vectors)
    assert not fusion.keyword_match(CHAT_NOTE, titles[0])
    hits = await store.hybrid("VideoMetadata", CHAT_NOTE, alpha=None, vector=query)
    assert hits[0].properties["video_id"] == "v0"
    assert hits[0].keyword_score >= fusion.STRONG_KEYWORDS
    monkeypatch.setattr(fusion, "STRONG_KEYWORDS", 2.0)  # never strong enough
    hits = await store.hybrid("VideoMetadata", CHAT_NOTE, alpha=None, vector=query)
    assert hits[0].properties["video_id"] == "v1"


CHINESE_CLAIM = "只要前景变得更难预测，贴现率一升高，公司的估值就会下降"
"""A Chinese claim of the large eval corpus, restating its passage in other words: the
passage holds a few of its many bigrams (贴现, 升高, 估值, 下降), never most."""


def test_a_cjk_query_among_cjk_passages_reads_its_bigrams_on_min_max():
    said = "未来越难看清 贴现率就会升高 估值自然往下走"
    english = ["the discount rate rises and valuations fall", "episode 4: the weather"]
    model = "local:use-multilingual"
    base = fusion.MODEL_BASE[model]
    assert fusion.written_in_cjk(CHINESE_CLAIM) and fusion.written_in_cjk(said)
    assert fusion.written_in_cjk("Anthropic五十几个工作日就上线了七十余款产品")  # names kept
    assert not fusion.written_in_cjk("Claude 4.5 would have been called 5 (他说)")
    assert not fusion.written_in_cjk("")
    # among CJK passages: at most CJK_ALPHA, keywords on min-max
    assert fusion.cjk_passages(CHINESE_CLAIM, [*english, said])
    assert fusion.adapted_alpha(CHINESE_CLAIM, model, [said], 0.3, [*english, said]) == (
        fusion.CJK_ALPHA
    )
    assert not fusion.calibrated_keywords(CHINESE_CLAIM, said, [*english, said])
    # a Chinese question about English videos (its bigrams match Chinese passages by
    # chance), or a CJK passage below the vector side's first CJK_AMONG: unchanged
    beyond = [*english * fusion.CJK_AMONG, said]
    for texts in (english, beyond, None):
        assert not fusion.cjk_passages(CHINESE_CLAIM, texts)
        assert fusion.adapted_alpha(CHINESE_CLAIM, model, [said], 0.3, texts) == base
        assert fusion.calibrated_keywords(CHINESE_CLAIM, said, texts)
    # an English query among Chinese passages: unchanged
    assert not fusion.cjk_passages("the discount rate rises", [said])
    # never raised: a query that leans on keywords keeps its lower weight
    assert fusion.adapted_alpha(said, model, [said], 1.0, [said]) == fusion.KEYWORD_MATCH_ALPHA


async def test_the_default_search_finds_a_chinese_claims_passage_by_its_bigrams(
    services, monkeypatch
):
    """The claim's passage holds four of its bigrams and sits halfway to the query's
    vector; another Chinese title is nearest it and holds none. On the calibrated scale
    the passage's bigrams scored too little to lift it over the nearest title; read on
    min-max at CJK_ALPHA they do."""
    from video_research.knowledge.store import get_store

    store = await get_store()
    rng, query = _random_query(11)
    titles = [
        "未来越难看清 贴现率就会升高 估值自然往下走",
        *(f"第{i}集 今天聊聊天气和周末的安排" for i in range(29)),
    ]
    vectors = rng.standard_normal((len(titles), 384)) * 0.05
    vectors[0] += query * 0.5
    vectors[1] = query + rng.standard_normal(384) * 0.02
    await _insert_titles(store, titles, vectors)
    hits = await store.hybrid("VideoMetadata", CHINESE_CLAIM, alpha=None, vector=query)
    assert hits[0].properties["video_id"] == "v0"
    assert hits[0].keyword_score < fusion.STRONG_KEYWORDS  # not the strong-keyword rule
    monkeypatch.setattr(fusion, "CJK_AMONG", 0)  # the vector side's passages never looked at
    hits = await store.hybrid("VideoMetadata", CHINESE_CLAIM, alpha=None, vector=query)
    assert hits[0].properties["video_id"] == "v1"


AGREED = "前景难预测 贴现率会升高"
"""A passage of CHINESE_CLAIM restated: it holds six of the claim's bigrams (前景, 难预,
预测, 贴现, 现率, 升高), a quarter of them."""


def test_both_sides_agree_on_a_chinese_claims_passage_holding_its_bigrams():
    model = "local:use-multilingual"
    english = ["the discount rate rises and valuations fall"]
    agreed = fusion.cjk_agreement(CHINESE_CLAIM, AGREED, [0.3, 0.2], lambda: (0.4, 0.6))
    assert agreed
    assert (
        fusion.adapted_alpha(CHINESE_CLAIM, model, [AGREED], 0.3, [AGREED], agreed)
        == fusion.CJK_AGREED_ALPHA
    )
    # the keyword side's second close behind: its best may be a chance match
    assert not fusion.cjk_agreement(CHINESE_CLAIM, AGREED, [0.3, 0.27], lambda: (0.4, 0.6))
    # alone on the keyword side: it stands apart
    assert fusion.cjk_agreement(CHINESE_CLAIM, AGREED, [0.3], lambda: (0.4, 0.6))
    # the vector side reads it far from the query
    assert not fusion.cjk_agreement(CHINESE_CLAIM, AGREED, [0.3, 0.2], lambda: (0.3, 0.6))
    # a short passage holding a few common bigrams by chance, however far it stands apart
    chance = "前景怎么样 公司会下降吗"
    assert len(count_terms(chance, content_terms(query_tokens(CHINESE_CLAIM)))) < 5
    assert not fusion.cjk_agreement(CHINESE_CLAIM, chance, [0.3, 0.1], lambda: (0.5, 0.6))
    # an English query, or an English passage: not a claim among Chinese passages
    assert not fusion.cjk_agreement(english[0], AGREED, [0.3, 0.2], lambda: (0.4, 0.6))
    assert not fusion.cjk_agreement(CHINESE_CLAIM, english[0], [0.3, 0.2], lambda: (0.4, 0.6))

    # the two vectors are read only for a hit that passes on its text and scores
    def unread() -> tuple[float, float]:
        raise AssertionError("vectors read for a hit that fails on its text")

    assert not fusion.cjk_agreement(CHINESE_CLAIM, chance, [0.3, 0.1], unread)
    assert not fusion.cjk_agreement(CHINESE_CLAIM, AGREED, [0.3, 0.27], unread)
    # a row deleted since the index answered: no cosine, no agreement
    assert not fusion.cjk_agreement(CHINESE_CLAIM, AGREED, [0.3, 0.2], lambda: None)
    # without agreement the weight is CJK_ALPHA's, as before
    assert fusion.adapted_alpha(CHINESE_CLAIM, model, [AGREED], 0.3, [AGREED]) == (fusion.CJK_ALPHA)


async def test_the_default_search_puts_the_passage_both_sides_agree_on_first(services, monkeypatch):
    """Among distractors: a hundred Chinese titles sit nearer the claim's vector than its
    passage does (none holds its bigrams), so the passage is not among the vector side's
    candidates, and on min-max at CJK_ALPHA the nearest title outranks it. It holds six of
    the claim's bigrams, scores far above the keyword side's second, and its cosine is
    near enough the vector side's best: both sides agree, and it goes first."""
    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()
    rng, query = _random_query(13)
    titles = [
        AGREED,
        "第0集 公司年会",  # the keyword side's second: one bigram
        *(f"第{i}集 今天聊聊天气和周末的安排" for i in range(1, 121)),
    ]
    noise = rng.standard_normal((len(titles), 384))
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    near = np.linspace(0.95, 0.8, len(titles) - 1)  # the distractors' cosines
    vectors = np.vstack(
        [
            0.62 * query + np.sqrt(1 - 0.62**2) * noise[0],
            *(c * query + np.sqrt(1 - c * c) * n for c, n in zip(near, noise[1:], strict=True)),
        ]
    )
    await _insert_titles(store, titles, vectors)
    hits = await store.hybrid("VideoMetadata", CHINESE_CLAIM, alpha=None, vector=query)
    assert hits[0].properties["video_id"] == "v0"
    monkeypatch.setattr(fusion, "CJK_AGREED_MARGIN", math.inf)  # never agreed
    hits = await store.hybrid("VideoMetadata", CHINESE_CLAIM, alpha=None, vector=query)
    assert hits[0].properties["video_id"] != "v0"
