"""The store contract, run against every backend there is: the embedded SQLite store
always, Weaviate as well when WEAVIATE_URL is set (use a scratch server: the tests write
to the knowledge collections and delete what they wrote).

Vectors come from the real local model (all-MiniLM-L6-v2), so the ranking tests check
real meaning on a small corpus written for them.
"""

from __future__ import annotations

import os
import uuid as uuid_lib

import numpy as np
import pytest

from video_research.knowledge import ranking
from video_research.knowledge.filters import Filter
from video_research.knowledge.store import (
    KnowledgeStore,
    generate_uuid5,
    get_store,
)
from video_research.support.errors import ToolFailure

LIVE_WEAVIATE = os.environ.get("WEAVIATE_URL")
"""Read at import: the autouse fixture scrubs WEAVIATE_* from each test's environment."""

BACKENDS = [
    "sqlite",
    pytest.param(
        "weaviate",
        marks=[
            pytest.mark.weaviate,
            pytest.mark.skipif(not LIVE_WEAVIATE, reason="WEAVIATE_URL is not set"),
        ],
    ),
]

CORPUS = {
    "pasta": (
        "Classic carbonara",
        "Cooking spaghetti with eggs, pecorino and guanciale the Roman way.",
        ["cooking", "italy"],
    ),
    "rocket": (
        "Falcon 9 launch",
        "A SpaceX rocket lifts off and lands its booster on a drone ship.",
        ["space"],
    ),
    "piano": (
        "Chopin nocturne lesson",
        "How to practise the left hand of a romantic piano piece slowly.",
        ["music"],
    ),
    "garden": (
        "Growing tomatoes",
        "Planting, watering and staking tomato seedlings in a backyard vegetable plot.",
        ["gardening"],
    ),
    "python": (
        "Async Python",
        "Writing concurrent network code with asyncio tasks and event loops.",
        ["programming"],
    ),
    "whales": (
        "Humpback whale songs",
        "Marine biologists record the long songs of humpbacks in the ocean.",
        ["nature", "ocean"],
    ),
}


@pytest.fixture(params=BACKENDS)
async def store(request, configure) -> KnowledgeStore:
    if request.param == "weaviate":
        configure(WEAVIATE_URL=LIVE_WEAVIATE)
    store = await get_store()
    assert store.backend == request.param
    yield store
    if request.param == "weaviate":
        for name in ("VideoMetadata", "VideoAnalyses"):
            await store.delete_where(name, Filter.eq("source_tool", "contract-test"))


async def load_corpus(store: KnowledgeStore) -> dict[str, str]:
    ids = {}
    for index, (key, (title, description, tags)) in enumerate(CORPUS.items()):
        ids[key] = await store.upsert(
            "VideoMetadata",
            {
                "video_id": f"vid{key}",
                "title": title,
                "description": description,
                "tags": tags,
                "view_count": 1000 * (index + 1),
                "published_at": f"2024-0{index + 1}-15",
                "has_captions": index % 2 == 0,
                "source_tool": "contract-test",
            },
            uuid=generate_uuid5(f"vid{key}"),
        )
    return ids


async def test_write_read_count_delete(store):
    uuid = await store.insert(
        "VideoAnalyses", {"title": "A", "summary": "first", "source_tool": "contract-test"}
    )
    got = await store.get("VideoAnalyses", uuid, include_vector=True)
    assert got.properties["title"] == "A" and got.properties["created_at"].endswith("Z")
    assert len(got.vector) == 384 and abs(np.linalg.norm(got.vector) - 1) < 1e-4
    assert await store.count("VideoAnalyses", Filter.eq("source_tool", "contract-test")) == 1
    with pytest.raises(ToolFailure) as conflict:
        await store.insert("VideoAnalyses", {"title": "B"}, uuid=uuid)
    assert conflict.value.category == "conflict"
    await store.upsert("VideoAnalyses", {"title": "B", "source_tool": "contract-test"}, uuid=uuid)
    replaced = await store.get("VideoAnalyses", uuid)
    assert replaced.properties["title"] == "B" and "summary" not in replaced.properties
    assert await store.delete("VideoAnalyses", uuid) is True
    assert await store.get("VideoAnalyses", uuid) is None
    assert await store.delete("VideoAnalyses", uuid) is False


def test_deterministic_uuid_matches_weaviate():
    from weaviate.util import generate_uuid5 as weaviate_uuid5

    assert generate_uuid5("dQw4w9WgXcQ") == str(weaviate_uuid5("dQw4w9WgXcQ"))


@pytest.mark.parametrize(
    ("properties", "needle"),
    [
        ({"title": "x", "colour": "red"}, "colour"),
        ({"title": 5}, "expected text"),
        ({"title": "x", "key_points": "not a list"}, "list of strings"),
    ],
)
async def test_properties_are_validated(store, properties, needle):
    with pytest.raises(ToolFailure) as failure:
        await store.insert("VideoAnalyses", properties)
    assert failure.value.category == "invalid_input"
    assert needle in failure.value.message + str(failure.value.details)
    assert await store.count("VideoAnalyses") == 0 or store.backend == "weaviate"


async def test_required_property_and_dates(store):
    with pytest.raises(ToolFailure, match="video_id"):
        await store.insert("VideoMetadata", {"title": "no id"})
    uuid = await store.insert(
        "VideoMetadata",
        {
            "video_id": "d1",
            "published_at": "2024-05-01T12:00:00+02:00",
            "source_tool": "contract-test",
        },
    )
    stored = await store.get("VideoMetadata", uuid)
    assert stored.properties["published_at"] == "2024-05-01T10:00:00.000000Z"


@pytest.mark.parametrize(
    ("properties", "needle"),
    [
        ({"view_count": 2**63}, "64 bits"),
        ({"view_count": -(10**400)}, "64 bits"),
        ({"published_at": "0001-01-01T00:00:00+01:00"}, "years 1 to 9999"),
    ],
)
async def test_out_of_range_values_are_invalid_input(store, properties, needle):
    with pytest.raises(ToolFailure) as failure:
        await store.insert(
            "VideoMetadata", {"video_id": "r1", "source_tool": "contract-test", **properties}
        )
    assert failure.value.category == "invalid_input"
    assert needle in failure.value.message


async def test_dates_before_year_1000_keep_their_order(store):
    """Canonical dates have four-digit years, so string order is time order."""
    old = await store.insert(
        "VideoMetadata",
        {"video_id": "d0", "published_at": "0999-05-01", "source_tool": "contract-test"},
    )
    await store.insert(
        "VideoMetadata",
        {"video_id": "d2", "published_at": "2024-05-01", "source_tool": "contract-test"},
    )
    stored = await store.get("VideoMetadata", old)
    assert stored.properties["published_at"] == "0999-05-01T00:00:00.000000Z"
    page = await store.fetch(
        "VideoMetadata",
        where=Filter.lt("published_at", "1500-01-01") & Filter.eq("source_tool", "contract-test"),
    )
    assert [o.uuid for o in page.objects] == [old]


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (Filter.eq("video_id", "vidpasta"), {"pasta"}),
        (Filter.in_("video_id", ["vidpasta", "vidpiano"]), {"pasta", "piano"}),
        (Filter.prefix("video_id", "vidp"), {"pasta", "piano", "python"}),
        (Filter.gte("view_count", 5000), {"python", "whales"}),
        (Filter.between("published_at", "2024-02-01", "2024-03-31"), {"rocket", "piano"}),
        (Filter.contains_any("tags", ["ocean", "space"]), {"rocket", "whales"}),
        (Filter.contains_all("tags", ["nature", "ocean"]), {"whales"}),
        (Filter.eq("has_captions", True), {"pasta", "piano", "python"}),
        (Filter.eq("video_id", "vidpasta") | Filter.lt("view_count", 2500), {"pasta", "rocket"}),
        (
            Filter.within("video_id", "view_count", [("vidpasta", 0, 10**6), ("vidpiano", 0, 10)]),
            {"pasta"},
        ),
        (
            Filter.within("video_id", "view_count", [("vidpython", 5000, 5000)])
            | Filter.eq("video_id", "vidrocket"),
            {"python", "rocket"},
        ),
    ],
)
async def test_filters(store, where, expected):
    ids = await load_corpus(store)
    names = {v: k for k, v in ids.items()}
    page = await store.fetch(
        "VideoMetadata", where=where & Filter.eq("source_tool", "contract-test")
    )
    assert {names[o.uuid] for o in page.objects} == expected
    hits = await store.hybrid("VideoMetadata", "video", alpha=0.5, where=where, limit=20)
    assert {names[h.uuid] for h in hits} <= expected


@pytest.mark.parametrize(
    ("where", "needle"),
    [
        (Filter.eq("description", "x"), "cannot be filtered"),
        (Filter.gt("video_id", "a"), "Operator 'gt'"),
        (Filter.eq("nope", 1), "no property 'nope'"),
        (Filter.eq("view_count", "many"), "expected a number"),
        (Filter.gt("view_count", 2**63), "64 bits"),
        (Filter.in_("view_count", [1, 10**400]), "64 bits"),
        (Filter.lt("published_at", "0001-01-01T00:00:00+01:00"), "years 1 to 9999"),
        (Filter.within("video_id", "view_count", []), "at least one span"),
        (Filter.within("description", "view_count", [("x", 0, 1)]), "cannot be filtered"),
        (Filter.within("tags", "view_count", [("x", 0, 1)]), "Operator 'eq'"),
        (Filter.within("video_id", "view_count", [("x", 0, "many")]), "expected a number"),
    ],
)
async def test_bad_filters_are_refused(store, where, needle):
    with pytest.raises(ToolFailure) as failure:
        await store.count("VideoMetadata", where)
    assert failure.value.category == "invalid_input" and needle in failure.value.message


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("how to make an italian noodle dish", "pasta"),
        ("space launch and reusable boosters", "rocket"),
        ("learning to play classical keyboard music", "piano"),
        ("vegetable gardening tips", "garden"),
        ("concurrency in a programming language", "python"),
        ("sea mammals singing", "whales"),
    ],
)
async def test_vector_search_finds_by_meaning(store, query, expected):
    ids = await load_corpus(store)
    hits = await store.hybrid("VideoMetadata", query, alpha=1.0, limit=3)
    assert hits[0].uuid == ids[expected], [h.properties["title"] for h in hits]
    assert hits[0].score == pytest.approx(1.0)


async def test_keyword_search_and_alpha(store):
    ids = await load_corpus(store)
    keyword = await store.hybrid("VideoMetadata", "guanciale", alpha=0.0)
    assert [h.uuid for h in keyword] == [ids["pasta"]]
    assert await store.hybrid("VideoMetadata", "zzzunknownword", alpha=0.0) == []
    # Hybrid: the keyword hit and the meaning hit both rank above unrelated objects.
    hybrid = await store.hybrid("VideoMetadata", "guanciale rocket", alpha=0.5, limit=6)
    assert {h.uuid for h in hybrid[:2]} == {ids["pasta"], ids["rocket"]}
    assert all(0.0 <= h.score <= 1.0 for h in hybrid)
    assert hybrid == sorted(hybrid, key=lambda h: -h.score)


async def test_selective_filter_still_fills_the_page(store):
    """Pre-filtering: a filter matching few objects still returns all of them by vector."""
    await load_corpus(store)
    hits = await store.near_text(
        "VideoMetadata", "cooking", where=Filter.contains_any("tags", ["ocean", "music"]), limit=5
    )
    assert {h.properties["video_id"] for h in hits} == {"vidwhales", "vidpiano"}


async def test_near_object_excludes_itself(store):
    ids = await load_corpus(store)
    related = await store.near_object("VideoMetadata", ids["whales"], limit=3)
    assert ids["whales"] not in {h.uuid for h in related} and len(related) == 3
    assert related == sorted(related, key=lambda h: h.distance)
    with pytest.raises(ToolFailure) as missing:
        await store.near_object("VideoMetadata", str(uuid_lib.uuid4()))
    assert missing.value.category == "not_found"


async def test_fetch_pages_and_orders(store):
    await load_corpus(store)
    where = Filter.eq("source_tool", "contract-test")
    first = await store.fetch("VideoMetadata", where=where, order_by=["view_count"], limit=4)
    second = await store.fetch(
        "VideoMetadata", where=where, order_by=["view_count"], limit=4, offset=first.next_offset
    )
    views = [o.properties["view_count"] for o in first.objects + second.objects]
    assert views == sorted(views) and len(views) == 6 and second.next_offset is None


async def test_replace_where_swaps_a_set(store):
    await store.insert_many(
        "VideoAnalyses",
        [{"title": f"old {i}", "video_id": "v1", "source_tool": "contract-test"} for i in range(3)],
    )
    deleted, new = await store.replace_where(
        "VideoAnalyses",
        Filter.eq("video_id", "v1"),
        [{"title": "new", "video_id": "v1", "source_tool": "contract-test"}],
    )
    assert deleted == 3 and len(new) == 1
    page = await store.fetch("VideoAnalyses", where=Filter.eq("video_id", "v1"))
    assert [o.properties["title"] for o in page.objects] == ["new"]


def _candidates(keyword, vector):
    from video_research.knowledge.ranking import Candidate

    found = {}
    for rank, (key, score) in enumerate(keyword):
        found[key] = Candidate(key, {}, keyword=score, keyword_rank=rank)
    for rank, (key, cosine) in enumerate(vector):
        found.setdefault(key, Candidate(key, {})).vector_rank = rank
        found[key].cosine = cosine
    return list(found.values())


def test_fixed_alpha_fusion_matches_weaviate_definition():
    """Weaviate's documented relativeScoreFusion example: min-max per side, weighted by
    alpha, summed; both backends' candidates are fused by this one function."""
    keyword = [("a", 5.0), ("b", 3.0), ("c", 1.0)]
    vector = [("b", 0.9), ("c", 0.8), ("d", 0.4)]
    fused = ranking.fuse(_candidates(keyword, vector), ranking.Params(), 0.75)
    scores = {c.key: c.fused for c in fused}
    assert scores["a"] == pytest.approx(0.25)
    assert scores["b"] == pytest.approx(0.25 * 0.5 + 0.75)
    assert scores["c"] == pytest.approx(0.75 * 0.8)
    assert scores["d"] == pytest.approx(0.0)
    assert [c.key for c in fused] == ["b", "c", "a", "d"]
    equal = ranking.fuse(_candidates([("x", 2.0), ("y", 2.0)], []), ranking.Params(), 0.0)
    assert [(c.key, c.fused) for c in equal] == [("x", 1.0), ("y", 1.0)]


def test_reciprocal_rank_fusion():
    keyword = [("a", 5.0), ("b", 3.0)]
    vector = [("b", 0.9), ("c", 0.8)]
    fused = ranking.fuse(_candidates(keyword, vector), ranking.Params(fusion="rrf", rrf_k=60))
    scores = {c.key: c.fused for c in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert [c.key for c in fused] == ["b", "a", "c"]
