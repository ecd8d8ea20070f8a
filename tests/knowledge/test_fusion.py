"""Query-adaptive hybrid weighting (knowledge.fusion): names and numbers lean on keywords."""

from __future__ import annotations

import pytest

from video_research.knowledge import fusion


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


async def test_hybrid_without_alpha_uses_the_query_weight(services):
    import numpy as np

    from video_research.knowledge.store import get_store

    store = await get_store()
    rng = np.random.default_rng(0)
    await store.insert_many(
        "VideoMetadata",
        [{"video_id": f"v{i}", "title": f"talk {i} about Grok 3"} for i in range(5)],
        vectors=rng.standard_normal((5, 384)),
    )
    query = rng.standard_normal(384)
    adaptive = await store.hybrid("VideoMetadata", "Grok 3", alpha=None, vector=query)
    fixed = await store.hybrid(
        "VideoMetadata", "Grok 3", alpha=fusion.query_alpha("Grok 3"), vector=query
    )
    assert [(h.uuid, h.score) for h in adaptive] == [(h.uuid, h.score) for h in fixed]
