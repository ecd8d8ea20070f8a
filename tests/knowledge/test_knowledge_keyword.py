"""The embedded store's keyword side (knowledge.fts): mixed scripts, bounded terms, scores."""

from __future__ import annotations

import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from video_research.knowledge.backends import fts


def test_cjk_and_latin_glued_together_are_split():
    terms = fts.query_terms("请讲解GPT4模型和Transformer的注意力机制2017年")
    assert "gpt4" in terms and "transformer" in terms and "2017" in terms
    assert all(not (any(c.isascii() for c in t) and any(ord(c) > 0x2E80 for c in t)) for t in terms)


def test_a_query_of_any_length_keeps_a_bounded_number_of_terms():
    words = [f"word{n}" for n in range(5000)]
    assert len(fts.query_terms(" ".join(words))) == fts.MAX_QUERY_TERMS


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None, derandomize=True)
@example('" OR ) NEAR( * ^')
@example("a\x00b")
def test_any_text_makes_a_valid_match_expression(text):
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE f USING fts5(body, tokenize='unicode61 remove_diacritics 2')"
    )
    conn.execute("INSERT INTO f VALUES ('hello world')")
    expression = fts.match_expression(fts.query_terms(text))
    if expression is not None:
        conn.execute("SELECT count(*) FROM f WHERE f MATCH ?", (expression,)).fetchone()


def test_plan_drops_words_in_half_the_rows_and_keeps_the_budget():
    terms = ["the", "gradient", "descent", "is", "video"]
    frequencies = [900_000, 400, 300, 800_000, 40_000]
    kept, fraction = fts.plan(terms, frequencies, 1_000_000, None)
    assert kept[:2] == ["descent", "gradient"] and "the" not in kept and "is" not in kept
    assert fraction == 1.0
    kept, fraction = fts.plan(["the", "video"], [900_000, 40_000], 1_000_000, None)
    assert kept == ["video"] and fraction == pytest.approx(fts.POSTINGS_BUDGET / 40_000)


async def test_mixed_script_query_finds_the_latin_terms_through_the_store():
    from video_research.knowledge.store import get_store

    store = await get_store()
    await store.insert_many(
        "WebSearchResults",
        [
            {"query": "GPT4 architecture", "response": "GPT4 uses attention, released 2023"},
            {"query": "bread", "response": "sourdough starter feeding"},
        ],
        vectors=[[1.0] + [0.0] * 383, [0.0, 1.0] + [0.0] * 382],
    )
    hits = await store.hybrid("WebSearchResults", "请介绍GPT4模型的架构2023年", alpha=0.0)
    assert [h.properties["query"] for h in hits] == ["GPT4 architecture"]


async def test_a_long_query_costs_no_more_than_a_short_one():
    from video_research.knowledge.store import get_store

    store = await get_store()
    objects = [
        {"query": f"q{n}", "response": f"the video shows step {n} of the recipe and the result"}
        for n in range(3000)
    ]
    await store.insert_many(
        "WebSearchResults", objects, vectors=[[1.0] + [0.0] * 383] * len(objects)
    )
    short = "the recipe step"
    long = " ".join(["the recipe step result video shows"] * 400 + [f"w{n}" for n in range(400)])
    for query in (short, long):  # warm the frequency cache
        await store.hybrid("WebSearchResults", query, alpha=0.0)

    async def timed(query: str) -> float:
        best = float("inf")
        for _ in range(5):
            started = time.perf_counter()
            await store.hybrid("WebSearchResults", query, alpha=0.0)
            best = min(best, time.perf_counter() - started)
        return best

    assert await timed(long) < 3 * await timed(short) + 0.01
