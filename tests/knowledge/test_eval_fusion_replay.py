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
