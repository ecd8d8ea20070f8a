"""One calibrated relevance on every search and ask result (knowledge/ranking.py, relevance.py)."""

from __future__ import annotations

from tests.calls import call_ok
from video_research.knowledge import ranking, relevance
from video_research.transcripts.moments import low_content

TIDES = (
    "# Tides\n\nThe moon's gravity pulls the oceans into two bulges, so most coasts see two "
    "high tides a day. Spring tides come when the sun and moon line up.\n"
)
BEES = (
    "# Bees in winter\n\nA honey bee colony survives the winter as a cluster around the queen, "
    "shivering its flight muscles to keep the centre warm while eating stored honey.\n"
)
UNRELATED = "how many ATP molecules does one turn of the Krebs cycle produce"


def test_relevance_is_a_probability_that_rises_with_both_signals():
    words = ranking.QueryWords.of("how does the moon pull the tides")
    for model in ("local:all-MiniLM-L6-v2", "local:use-multilingual", "gemini:x"):
        fitted = ranking.params(model)
        grid = [
            ranking.relevance(fitted, words, c / 10, text)
            for c in range(-2, 11)
            for text in ("", "moon", "moon pull", "moon pull tides")
        ]
        assert all(0.0 <= value <= 1.0 for value in grid)
        assert ranking.relevance(fitted, words, 0.2, "") <= ranking.relevance(
            fitted, words, 0.7, ""
        )
        assert ranking.relevance(fitted, words, 0.2, "") <= ranking.relevance(
            fitted, words, 0.2, "moon tides"
        )
    assert relevance.is_weak(ranking.relevance(ranking.params("x"), words, None, ""))


def test_the_stopwords_of_a_question_match_nothing():
    text = "how does the moon pull the tides"
    assert ranking.share(ranking.QueryWords.of("how does the stock market work"), text) == 0.0
    assert ranking.share(ranking.QueryWords.of("how does the moon pull the tides"), text) == 1.0


async def test_every_search_tool_says_relevance_and_weak(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "tides.md").write_text(TIDES)
    (folder / "bees.md").write_text(BEES)
    await call_ok("document_ingest", {"path": str(folder)})

    quoted = "the moon's gravity pulls the oceans into two bulges"
    found = await call_ok("document_search", {"query": quoted})
    top = found["results"][0]
    assert "Tides" in top["title"] and not top["weak"] and top["relevance"] >= relevance.WEAK
    assert not any("Nothing in the store" in note for note in found.get("notes", []))

    nothing = await call_ok("document_search", {"query": UNRELATED})
    assert nothing["results"], "hybrid search always returns the nearest passages"
    assert all(r["weak"] and r["relevance"] < relevance.WEAK for r in nothing["results"])
    (note,) = nothing["notes"]
    assert note.startswith("Nothing in the store matches this well: the best is ")

    searched = await call_ok("knowledge_search", {"query": UNRELATED})
    assert all(hit["weak"] for hit in searched["results"])
    assert any(n.startswith("Nothing in the store matches this well") for n in searched["notes"])

    asked = await call_ok("knowledge_ask", {"question": UNRELATED})
    assert asked["sources"] and all(s["weak"] for s in asked["sources"])
    assert any(n.startswith("Nothing in the store matches this well") for n in asked["notes"])
    answered = await call_ok("knowledge_ask", {"question": quoted})
    assert not answered["sources"][0]["weak"]


async def test_relevance_does_not_depend_on_the_other_hits(tmp_path):
    """Unlike the fused score (the best hit always 1.0), a hit's relevance is its own: the
    same passage for the same query scores the same whatever else the store holds."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "bees.md").write_text(BEES)
    await call_ok("document_ingest", {"path": str(folder)})
    first = (await call_ok("document_search", {"query": UNRELATED}))["results"][0]
    (folder / "tides.md").write_text(TIDES)
    await call_ok("document_ingest", {"path": str(folder)})
    again = await call_ok("document_search", {"query": UNRELATED})
    same = next(r for r in again["results"] if r["document_id"] == first["document_id"])
    # the fused score is normalised per query (its best vector hit scores its side's whole
    # weight, 0.5 here, whatever it holds); the relevance is the hit's own
    assert first["score"] >= 0.5 and first["weak"]
    assert abs(same["relevance"] - first["relevance"]) < 1e-6


def test_a_slide_matched_word_for_word_is_never_low_content():
    slide = {"start_time": 0.0, "end_time": 60.0, "text": "The Krebs Cycle", "evidence": "screen"}
    spoken = {**slide, "evidence": "speech"}
    assert not low_content(slide)
    assert low_content(spoken), "three words a minute of speech is filler"


def test_the_keyword_query_leaves_out_stopwords_unless_nothing_else_is_left():
    from video_research.knowledge.backends.fts import query_terms
    from video_research.knowledge.keyword_tokens import content_terms, query_tokens

    query = "why should I let the bread cool before cutting it"
    for terms in (query_tokens(query), query_terms(query)):  # the index's and FTS5's tokens
        kept = content_terms(terms)
        assert {"bread", "cool", "cutting"} <= set(kept)
        assert not {"why", "should", "it", "the"} & set(kept)
    assert content_terms(query_tokens("what is it")) == query_tokens("what is it")
