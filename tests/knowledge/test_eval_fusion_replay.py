"""The replay's routed rule (tests/eval/fusion_replay.py): one embedder's vector side per
query, the second's only where the keyword side did not find the query's words."""

from __future__ import annotations

import pytest

from tests.eval import fusion_replay
from tests.eval.metrics import Query
from video_research.knowledge.models import SearchHit
from video_research.transcripts.indexer import CHUNKS

FIRST, SECOND = "local:multilingual-e5-small", "local:use-multilingual"


def _hit(uuid: str, text: str, score: float, keyword: float | None = None) -> SearchHit:
    return SearchHit(
        uuid=uuid,
        collection=CHUNKS,
        properties={"text": text, "video_id": "v", "start_time": 0.0, "end_time": 20.0},
        score=score,
        distance=None if keyword is not None else 1 - score,
        keyword_score=keyword,
    )


def _side(hits: list[SearchHit]) -> fusion_replay.Side:
    # As `collect` builds each side from the store's hits.
    return fusion_replay.Side(hits, fusion_replay._minmax(hits, lambda h: h.score))


def _candidates(share: float | None) -> fusion_replay.Candidates:
    query = Query("q1", "how does a neural network learn", "v", 0.0, "notes", "en", "en")
    keyword = [
        _hit("k1", "a network learns its weights", 3.0, 0.6),
        _hit("k2", "weights", 1.0, 0.2),
    ]
    return fusion_replay.Candidates(
        query,
        _side(keyword),
        {
            FIRST: _side([_hit("e1", "gradient descent", 0.9), _hit("e2", "cost", 0.8)]),
            SECOND: _side([_hit("u1", "backpropagation", 0.7), _hit("u2", "layers", 0.6)]),
        },
        share,
    )


@pytest.mark.parametrize(
    ("share", "used", "unused"),
    [(0.9, "e1", "u1"), (0.31, "e1", "u1"), (0.29, "u1", "e1"), (None, "u1", "e1")],
)
def test_the_second_vector_side_only_where_the_keywords_hold_little_of_the_query(
    share, used, unused
):
    rule = fusion_replay.rules([FIRST, SECOND])[
        "multilingual-e5-small+use-multilingual: routed, multilingual-e5-small's vectors, "
        "use-multilingual's where keyword share < 0.3"
    ]
    fused = rule(_candidates(share))
    assert used in fused
    assert unused not in fused
    # What it fuses is the default over that one side, as the server would compute it.
    model = FIRST if used == "e1" else SECOND
    assert fused == fusion_replay.names_found([model])(_candidates(share))


def test_a_second_store_s_hits_move_onto_the_chunks_of_the_first_it_overlaps_most():
    # The second store cut video v at other seconds: its chunk "u1" (40-70 s) is mostly
    # the first store's "a2" (45-80 s), "u2" (0-30 s) mostly "a1" (0-45 s), and "u3"
    # (10-20 s) lands on "a1" too, where "u2", ranked higher, already is.
    target = {
        "v": [
            (0.0, 45.0, "a1", {"video_id": "v", "start_time": 0.0, "end_time": 45.0}),
            (45.0, 80.0, "a2", {"video_id": "v", "start_time": 45.0, "end_time": 80.0}),
        ]
    }

    def hit(uuid, start, end, score):
        found = _hit(uuid, "text", score)
        return found.model_copy(
            update={"properties": {"video_id": "v", "start_time": start, "end_time": end}}
        )

    hits = [hit("u1", 40.0, 70.0, 0.9), hit("u2", 0.0, 30.0, 0.8), hit("u3", 10.0, 20.0, 0.7)]
    found = _candidates(0.5)
    found.vectors[SECOND] = _side(hits)
    found.cosine[SECOND] = {h.uuid: h.score for h in hits}
    moved = fusion_replay.realign([found], SECOND, target)[0]
    side = moved.vectors[SECOND]
    assert [h.uuid for h in side.hits] == ["a2", "a1"]
    assert side.hits[0].properties["start_time"] == 45.0
    assert side.norm == {
        "a2": found.vectors[SECOND].norm["u1"],
        "a1": found.vectors[SECOND].norm["u2"],
    }
    assert moved.cosine[SECOND] == {"a2": 0.9, "a1": 0.8}
    assert [h.uuid for h in found.vectors[SECOND].hits] == ["u1", "u2", "u3"]  # kept
