"""One calibrated relevance on every search and ask result (video_research/knowledge/relevance.py)."""

from __future__ import annotations

import shutil

from tests.calls import call_ok
from tests.helpers import DATA
from video_research.knowledge import relevance
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
    for model in ("local:all-MiniLM-L6-v2", "local:use-multilingual", "gemini:x"):
        grid = [relevance.relevance(c / 10, s / 4, model) for c in range(-2, 11) for s in range(5)]
        assert all(0.0 <= value <= 1.0 for value in grid)
        assert relevance.relevance(0.2, 0.0, model) <= relevance.relevance(0.7, 0.0, model)
        assert relevance.relevance(0.2, 0.0, model) <= relevance.relevance(0.2, 1.0, model)
    assert relevance.is_weak(relevance.relevance(None, None, "local:all-MiniLM-L6-v2"))


def test_a_moments_window_is_a_third_signal_and_its_absence_falls_back():
    for model in relevance.IN_CONTEXT:
        low = relevance.relevance_in_context(0.3, 0.1, 0.0, model)
        high = relevance.relevance_in_context(0.3, 0.6, 0.0, model)
        assert 0.0 <= low < high <= 1.0
        assert relevance.relevance_in_context(0.3, None, 0.5, model) == relevance.relevance(
            0.3, 0.5, model
        )
    assert relevance.relevance_in_context(0.3, 0.6, 0.0, "gemini:x") == relevance.relevance(
        0.3, 0.0, "gemini:x"
    )
    assert relevance.relevance_in_context(None, 0.6, 0.0, "local:use-multilingual") == (
        relevance.relevance(None, 0.0, "local:use-multilingual")
    )


async def test_a_spoken_moment_is_scored_with_the_windows_around_it(tmp_path):
    """The search reads the stored ~20 s windows inside each moment to link it; the same
    window cosine is the relevance's third signal (scores.window), and the same chunk
    found by knowledge_search gets the same relevance. Without pinpointing no window is
    read and the relevance is the two-signal one."""
    from video_research.knowledge.store import get_store

    folder = tmp_path / "talks"
    folder.mkdir()
    shutil.copy(DATA / "transcripts" / "formats" / "volcano_lecture.tsv", folder)
    await call_ok("index_transcript_files", {"path": str(folder), "fetch_metadata": False})
    model = (await get_store()).embedder.identity
    assert model in relevance.IN_CONTEXT
    query = "what makes thick sticky magma explode"
    found = await call_ok("semantic_search_transcripts", {"query": query, "auto_index": False})
    single = [m for m in found["results"] if m["chunks"] == 1]
    assert single and all(m["scores"]["window"] is not None for m in found["results"])
    bound = relevance.ceiling(*_best_evidence(found["results"]), model)
    assert bound is not None
    for moment in single:
        s = moment["scores"]
        own = relevance.relevance_in_context(s["cosine"], s["window"], s["share"], model)
        assert abs(moment["relevance"] - min(own, bound)) < 2e-3
        assert moment["weak"] == relevance.is_weak(moment["relevance"])
    searched = await call_ok(
        "knowledge_search", {"query": query, "collections": ["TranscriptChunks"]}
    )
    by_text = {hit["properties"]["text"].replace("\n", " "): hit for hit in searched["results"]}
    for moment in single:
        assert abs(by_text[moment["text"]]["relevance"] - moment["relevance"]) < 1e-6

    plain = await call_ok(
        "semantic_search_transcripts", {"query": query, "auto_index": False, "pinpoint": False}
    )
    for moment in plain["results"]:
        s = moment["scores"]
        assert s["window"] is None
        assert moment["scores"]["relevance"] == relevance.relevance(s["cosine"], s["share"], model)

    strict = await call_ok(
        "semantic_search_transcripts", {"query": query, "auto_index": False, "min_score": 0.5}
    )
    assert all(m["relevance"] >= 0.5 for m in strict["results"])
    strict = await call_ok(
        "knowledge_search",
        {"query": query, "collections": ["TranscriptChunks"], "min_score": 0.5},
    )
    assert all(hit["relevance"] >= 0.5 for hit in strict["results"])


def _best_evidence(results: list[dict]) -> list[float | None]:
    """The best window, chunk cosine and share among a search's results, as `scores` shows them."""
    return [
        max((r["scores"][name] for r in results if r["scores"][name] is not None), default=None)
        for name in ("window", "cosine", "share")
    ]


def test_the_ceiling_rises_with_the_searchs_best_evidence_and_needs_a_window():
    for model in relevance.CEILING:
        grid = [
            relevance.ceiling(w / 10, c / 10, s / 4, model)
            for w in range(8)
            for c in range(8)
            for s in range(5)
        ]
        assert all(0.0 <= value <= 1.0 for value in grid)
        assert relevance.ceiling(0.2, 0.3, 0.0, model) < relevance.ceiling(0.5, 0.3, 0.0, model)
        assert relevance.ceiling(0.3, 0.2, 0.0, model) < relevance.ceiling(0.3, 0.5, 0.0, model)
        assert relevance.ceiling(0.3, 0.3, 0.0, model) < relevance.ceiling(0.3, 0.3, 1.0, model)
        assert relevance.ceiling(None, 0.5, 1.0, model) is None
        assert relevance.ceiling(0.5, None, 1.0, model) is None
    assert relevance.ceiling(0.9, 0.9, 1.0, "gemini:x") is None


async def test_a_question_next_to_an_indexed_subject_is_bounded_by_what_the_search_found(tmp_path):
    """Brake pads beside a podcast on truing bicycle wheels: one sentence fits well enough
    on its own (above 0.5 with the test model), but nothing the search found
    goes on about brake pads, so no hit scores above the search's ceiling. The ceiling
    only lowers: the right passage of an answered question keeps its own relevance."""
    from video_research.knowledge.store import get_store

    folder = tmp_path / "talks"
    shutil.copytree(DATA / "transcripts" / "formats", folder)
    await call_ok("index_transcript_files", {"path": str(folder), "fetch_metadata": False})
    model = (await get_store()).embedder.identity
    assert model in relevance.CEILING
    lowered = 0
    for query in (
        "how to replace the brake pads on a car's front wheels",
        "how do honey bees keep warm in winter",
    ):
        found = await call_ok("semantic_search_transcripts", {"query": query, "auto_index": False})
        bound = relevance.ceiling(*_best_evidence(found["results"]), model)
        for moment in found["results"]:
            s = moment["scores"]
            own = relevance.relevance_in_context(s["cosine"], s["window"], s["share"], model)
            assert moment["relevance"] <= bound + 1e-9
            assert moment["relevance"] <= own + 2e-3 or moment["chunks"] > 1
            lowered += own > bound + 1e-3
        if "bees" in query:
            assert not found["results"][0]["weak"] and found["results"][0]["relevance"] > 0.95
        # knowledge_search bounds its transcript hits by its own hits' best evidence
        searched = await call_ok(
            "knowledge_search", {"query": query, "collections": ["TranscriptChunks"]}
        )
        by_text = {h["properties"]["text"].replace("\n", " "): h for h in searched["results"]}
        top = found["results"][0]
        s = top["scores"]
        own = relevance.relevance_in_context(s["cosine"], s["window"], s["share"], model)
        if own > bound + 1e-3:
            assert by_text[top["text"]]["relevance"] < own - 0.05
    assert lowered, "the brake-pad question's best sentence scores above its search's ceiling"


def test_the_stopwords_of_a_question_match_nothing():
    from video_research.knowledge.keyword_tokens import matched_share

    text = "how does the moon pull the tides"
    assert matched_share("how does the stock market work", text, relevance.STOPWORDS) == 0.0
    assert matched_share("how does the moon pull the tides", text, relevance.STOPWORDS) == 1.0


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
