"""The ranking pipeline (knowledge/ranking.py, transcripts/search.py): its invariants on
really indexed media, captions and transcripts, and both backends ranking alike.

The media are the committed fixtures indexed through index_media_files (a lecture with
slides and speech; clips joined with `-c copy` with their captions beside them) and a
real transcript through index_transcript_files; the queries are drawn by hypothesis
from what those tools stored."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.calls import call_ok
from tests.helpers import DATA
from video_research.knowledge import ranking
from video_research.knowledge.relevance import STOPWORDS, WEAK

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
SEARCH = "semantic_search_transcripts"
FEW = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
QUERIES = [
    "plants turn sunlight into chemical energy",
    "how do cells get energy out of food",
    "continents drift slowly",
    "what happens at the event horizon",
    "immune memory",
    "why do penguins stand close together",
    "molten rock rises",
    "how many ATP molecules does one turn of the Krebs cycle produce",
    "las abejas bailan para señalar las flores",
]


@pytest.fixture
async def indexed(tmp_path) -> dict[str, list[str]]:
    """The fixtures indexed once per test; the texts the store holds, by evidence."""
    from video_research.knowledge.store import get_store
    from video_research.transcripts.indexer import CHUNKS

    folder = tmp_path / "media"
    folder.mkdir()
    shutil.copy(FIXTURES / "lecture.mp4", folder / "biology_intro.mp4")
    shutil.copy(FIXTURES / "clips_joined.mp4", folder / "nature_clips.mp4")
    shutil.copy(FIXTURES / "clips_joined.en.vtt", folder / "nature_clips.en.vtt")
    await call_ok("index_media_files", {"paths": [str(folder)]})
    talks = tmp_path / "talks"
    talks.mkdir()
    shutil.copy(DATA / "transcripts" / "formats" / "volcano_lecture.tsv", talks)
    await call_ok("index_transcript_files", {"path": str(talks), "fetch_metadata": False})
    store = await get_store()
    page = await store.fetch(CHUNKS, limit=1000)
    texts: dict[str, list[str]] = {}
    for obj in page.objects:
        evidence = obj.properties.get("evidence") or "speech"
        texts.setdefault(evidence, []).append(obj.properties["text"].replace("\n", " "))
    return texts


def _key(result: dict) -> tuple:
    return (result["video_id"], result["evidence"], result["start_time"], result["text"])


def _same(result: dict) -> tuple:
    return (*_key(result), result["match_time"], result["relevance"], result["timestamp_url"])


async def _search(query: str, **arguments) -> list[dict]:
    found = await call_ok(SEARCH, {"query": query, "auto_index": False, **arguments})
    return found["results"]


@pytest.mark.slow  # indexes media: the speech and OCR models
@FEW
@given(query=st.sampled_from(QUERIES), k=st.integers(1, 8), more=st.integers(1, 20), data=st.data())
async def test_the_rankings_invariants_on_indexed_media(indexed, query, k, more, data):
    """One index of the fixtures (the slow part), every invariant on each drawn example:

    - the first k results are the first k of any larger k (same moments, order,
      relevance and links);
    - a hit's relevance is its own: the same moment scores the same alone in its video,
      among every video, and with its kind of evidence as a filter;
    - a query that is a run of three content words of anything stored (speech, text read
      off the slides, captions beside the video) finds it, and never as weak."""
    few = await _search(query, k=k)
    many = await _search(query, k=k + more)
    assert [_same(r) for r in few] == [_same(r) for r in many[:k]]

    result = data.draw(st.sampled_from(many[:4]))
    for arguments in (
        {"video_ids": [result["video_id"]]},
        {"evidence": result["evidence"]},
        {"video_ids": [result["video_id"]], "evidence": result["evidence"]},
    ):
        narrowed = await _search(query, k=20, **arguments)
        same = [r for r in narrowed if _key(r) == _key(result)]
        assert same, (result, arguments, narrowed)
        assert same[0]["relevance"] == result["relevance"]

    # what was said or shown (captions are speech); computed chapter titles are keywords
    evidence = data.draw(st.sampled_from(sorted(set(indexed) - {"chapter"})))
    phrase = data.draw(_phrases(indexed[evidence]))
    words = ranking.QueryWords.of(phrase)
    for arguments in ({}, {"evidence": evidence}):
        results = await _search(phrase, k=10, **arguments)
        holding = [r for r in results if ranking.exact_run(words, r["text"]) >= 3]
        assert holding, (phrase, arguments, results)
        assert all(not r["weak"] and r["relevance"] >= WEAK for r in holding)


def _phrases(texts: list[str]) -> st.SearchStrategy[str]:
    """Runs of three to six words of a stored text, three of them content words."""

    def runs(text: str) -> list[str]:
        words = text.split()
        found = []
        for start in range(len(words)):
            for size in range(3, 7):
                run = words[start : start + size]
                content = [w for w in run if w.lower().strip(".,!?'\"") not in STOPWORDS]
                if len(run) == size and len(content) >= 3:
                    found.append(" ".join(run))
        return found

    choices = sorted({run for text in texts for run in runs(text)})
    return st.sampled_from(choices)


async def test_an_exact_phrase_of_a_document_is_never_weak(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "coffee.md").write_text(
        "# Decaf\n\nThe Swiss Water Process removes caffeine with water alone, no solvents.\n"
    )
    await call_ok("document_ingest", {"path": str(folder)})
    found = await call_ok("document_search", {"query": "Swiss Water Process"})
    assert not found["results"][0]["weak"]


def test_an_exact_run_skips_stopwords_and_keeps_order():
    words = ranking.QueryWords.of("what is the Maillard reaction temperature")
    assert ranking.exact_run(words, "the Maillard reaction temperature is about 140 C") == 3
    assert ranking.exact_run(words, "temperature of the reaction Maillard") == 1
    low = ranking.Params(relevance=ranking.Fit(0.1, 0.0, -10.0))
    assert ranking.relevance(low, words, 0.1, "Maillard reaction temperature") == WEAK
    assert ranking.relevance(low, words, 0.1, "a reaction of temperature") < WEAK


async def test_both_backends_rank_the_same_candidates_alike(tmp_path):
    """The embedded store's candidates, handed to the Weaviate backend's conversion as
    weaviate-client's own result objects, rank in the same order with the same relevance
    and links: the backends differ only in how they find candidates."""
    from weaviate.collections.classes.internal import MetadataReturn, Object

    from tests.eval.metrics import Query
    from tests.eval.ranking_eval import Sample, replay
    from video_research.knowledge.backends.weaviate_store import gather
    from video_research.knowledge.collections import get_collection
    from video_research.knowledge.store import get_store
    from video_research.transcripts.indexer import CHUNKS

    talks = tmp_path / "talks"
    talks.mkdir()
    shutil.copy(DATA / "transcripts" / "formats" / "volcano_lecture.tsv", talks)
    await call_ok("index_transcript_files", {"path": str(talks), "fetch_metadata": False})
    store = await get_store()
    definition = get_collection(CHUNKS)
    for text in QUERIES[:5]:
        vector = (await store.embedder.embed([text], "query"))[0]
        ours = await store.candidates(CHUNKS, text, vector=vector)
        vectors = {
            c.key: (await store.get(CHUNKS, c.key, include_vector=True)).vector for c in ours
        }

        def as_object(candidate, side, vectors=vectors):
            return Object(
                uuid=candidate.key,
                properties=candidate.properties,
                metadata=MetadataReturn(
                    score=candidate.keyword if side == "keyword" else None,
                    distance=None if side == "keyword" else 1.0 - candidate.cosine,
                ),
                references=None,
                vector={"default": vectors[candidate.key]},
                collection=CHUNKS,
            )

        keyword = sorted(
            (c for c in ours if c.keyword_rank is not None), key=lambda c: c.keyword_rank
        )
        nearest = sorted(
            (c for c in ours if c.vector_rank is not None), key=lambda c: c.vector_rank
        )
        import numpy as np

        theirs = gather(
            definition,
            [as_object(c, "keyword") for c in keyword],
            [as_object(c, "vector") for c in nearest],
            np.asarray(vector, dtype=np.float32),
        )
        for candidate in theirs:
            candidate.text = definition.keyword_text(candidate.properties)
        query = Query("q", text, "", 0.0, "literal", "en", "en")
        model = store.embedder.identity
        a = replay(Sample(query, "", ours, model))
        b = replay(Sample(query, "", theirs, model))
        assert [(v, t) for v, t, _ in a] == [(v, t) for v, t, _ in b]
        assert [r for _, _, r in a] == pytest.approx([r for _, _, r in b], abs=1e-3)
