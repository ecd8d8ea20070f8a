"""The Weaviate backend's translation layer, checked without a server.

No Weaviate server can run on the CI machines, so these tests pin what the backend
hands to weaviate-client: connection choice, collection schema, filters and how results come back. The live contract tests in
test_knowledge_store.py run the same store API against a real server when WEAVIATE_URL
is set.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from video_research.config import load_settings
from video_research.knowledge.backends import weaviate_connection as wc
from video_research.knowledge.backends import weaviate_mapping as wm
from video_research.knowledge.backends import weaviate_store as ws
from video_research.knowledge.collections import get_collection
from video_research.knowledge.filters import Filter, bind
from video_research.support.errors import ToolFailure

METADATA = get_collection("VideoMetadata")


@pytest.mark.parametrize(
    ("url", "kind", "expected"),
    [
        ("http://localhost:8080", "local", {"host": "localhost", "port": 8080, "grpc_port": 50051}),
        ("http://127.0.0.1:9090", "local", {"host": "127.0.0.1", "port": 9090, "grpc_port": 50051}),
        (
            "https://my-cluster.weaviate.cloud",
            "cloud",
            {"cluster_url": "https://my-cluster.weaviate.cloud"},
        ),
        ("https://abc.weaviate.network", "cloud", {"cluster_url": "https://abc.weaviate.network"}),
        (
            "https://vectors.example.com",
            "custom",
            {
                "http_host": "vectors.example.com",
                "http_port": 443,
                "http_secure": True,
                "grpc_host": "vectors.example.com",
                "grpc_port": 50051,
                "grpc_secure": True,
            },
        ),
        # A spoofed host that merely contains the cloud domain is not the cloud.
        ("http://weaviate.cloud.evil.com:8080", "custom", None),
    ],
)
def test_connection_plan(url, kind, expected):
    got_kind, kwargs = wc.connection_plan(url)
    assert got_kind == kind
    if expected is not None:
        assert kwargs == expected


def test_connection_plan_grpc_port_and_bad_url():
    assert wc.connection_plan("http://localhost:8080", 50052)[1]["grpc_port"] == 50052
    with pytest.raises(ToolFailure) as failure:
        wc.connection_plan("http://:8080")
    assert failure.value.category == "config_error"


def test_connection_plan_refuses_a_bad_port_without_echoing_the_password():
    with pytest.raises(ToolFailure) as failure:
        wc.connection_plan("https://admin:s3cret@db.example.com:99999")
    assert failure.value.category == "config_error" and "port" in failure.value.message
    assert "s3cret" not in failure.value.message


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("admin:s3cret@db.example.com:8080", "http://db.example.com:8080"),
        ("https://u:p@db.example.com/v1?api_key=s3cret#x", "https://db.example.com/v1"),
        ("http://localhost:8080", "http://localhost:8080"),
        ("https://db.example.com/k-apikey1234", "https://db.example.com/k-[REDACTED]"),
    ],
)
def test_location_shows_no_credentials(url, shown):
    from video_research.knowledge.embedders.embeddings import LocalEmbedder

    settings = load_settings({"WEAVIATE_URL": url, "WEAVIATE_API_KEY": "apikey1234"})
    assert ws.WeaviateStore(settings, LocalEmbedder()).location == shown


def test_collection_config_carries_properties_and_hnsw():
    settings = load_settings(
        {
            "WEAVIATE_URL": "http://localhost:8080",
            "WEAVIATE_DISTANCE": "dot",
            "WEAVIATE_HNSW_MAX_CONNECTIONS": "64",
            "WEAVIATE_HNSW_EF_CONSTRUCTION": "256",
            "WEAVIATE_HNSW_EF": "100",
        }
    )
    config = wm.collection_config(METADATA, settings)
    assert config["name"] == "VideoMetadata"
    props = {p.name: p for p in config["properties"]}
    assert list(props)[:2] == ["created_at", "source_tool"]
    assert (
        props["video_id"].tokenization.value == "field"
        and props["video_id"].indexSearchable is False
    )
    assert props["title"].skip_vectorization is False and props["view_count"].skip_vectorization
    assert props["view_count"].indexRangeFilters is True
    assert props["tags"].dataType.value == "text[]"
    # Filters compare whole values: a filterable tag list is not split into words.
    assert props["tags"].tokenization.value == "field"
    assert props["title"].tokenization is None and props["description"].tokenization is None
    index = config["vector_config"].vectorIndexConfig
    assert (index.distance.value, index.maxConnections, index.efConstruction, index.ef) == (
        "dot",
        64,
        256,
        100,
    )
    assert config["vector_config"].vectorizer.vectorizer.value == "none"


def _rest(filter_obj) -> dict:
    """The filter as weaviate-client's own converter writes it for the REST API."""
    from weaviate.collections.filters import _FilterToREST

    return _FilterToREST.convert(filter_obj)


def test_filters_translate():
    where = bind(
        Filter.eq("video_id", "abc")
        & Filter.gte("view_count", 10)
        & Filter.between("published_at", "2024-01-01", "2024-12-31")
        & Filter.contains_any("tags", ["a", "b"])
        & Filter.prefix("channel_id", "UC")
        & Filter.in_("definition", ["hd", "sd"]),
        METADATA,
    )
    rest = _rest(wm.to_weaviate_filter(where, METADATA))
    assert rest["operator"] == "And"
    flat: dict[str, list] = {}

    def walk(node):
        if "operands" in node:
            for operand in node["operands"]:
                walk(operand)
            return
        value = next(v for k, v in node.items() if k.startswith("value"))
        flat.setdefault(node["path"][0], []).append((node["operator"], value))

    walk(rest)
    assert flat["video_id"] == [("Equal", "abc")]
    assert flat["view_count"] == [("GreaterThanEqual", 10)]
    assert [op for op, _ in flat["published_at"]] == ["GreaterThanEqual", "LessThanEqual"]
    assert flat["published_at"][0][1].startswith("2024-01-01T00:00:00")
    assert flat["tags"] == [("ContainsAny", ["a", "b"])]
    assert flat["channel_id"] == [("Like", "UC*")]
    assert flat["definition"] == [("Equal", "hd"), ("Equal", "sd")]
    assert wm.to_weaviate_filter(None, METADATA) is None


@pytest.mark.parametrize("spans", [[("abc", 10, 20)], [("abc", 10, 20), ("def", 0, 5)]])
def test_within_translates_to_the_spans_it_stands_for(spans):
    """Weaviate has no span filter: within is the any_of of each span's key and range."""
    where = bind(Filter.within("video_id", "view_count", spans), METADATA)
    rest = _rest(wm.to_weaviate_filter(where, METADATA))
    branches = rest["operands"] if rest["operator"] == "Or" else [rest]
    assert len(branches) == len(spans)
    for branch, (key, low, high) in zip(branches, spans, strict=True):
        assert branch["operator"] == "And"
        operands = [(o["path"][0], o["operator"]) for o in branch["operands"]]
        assert operands == [
            ("video_id", "Equal"),
            ("view_count", "GreaterThanEqual"),
            ("view_count", "LessThanEqual"),
        ]
        values = [
            next(v for k, v in o.items() if k.startswith("value")) for o in branch["operands"]
        ]
        assert values == [key, low, high]


def test_filterable_text_of_other_collections_compares_whole_values():
    from video_research.knowledge.collections import registered_collections

    for definition in registered_collections():
        for prop in wm.collection_config(definition, load_settings({}))["properties"]:
            spec = definition.by_name[prop.name]
            if spec.filterable and spec.data_type.is_text:
                assert prop.tokenization.value == "field", (definition.name, prop.name)


@pytest.mark.parametrize("value", ["UC*", "UC?x", "*"])
def test_prefix_with_a_wildcard_is_refused(value):
    where = bind(Filter.prefix("channel_id", value), METADATA)
    with pytest.raises(ToolFailure) as failure:
        wm.to_weaviate_filter(where, METADATA)
    assert failure.value.category == "invalid_input"


def test_results_come_back_in_our_form():
    moment = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    obj = SimpleNamespace(
        uuid="0b6e4f3c-2f4c-4d67-9a2f-2f5c1c6b2a10",
        properties={"video_id": "v", "published_at": moment, "title": None, "stray": 1},
        metadata=SimpleNamespace(score=0.7, distance=0.25),
        vector={"default": [1.0, 0.0]},
    )
    hit = wm.to_search_hit(METADATA, obj, vector_only=False)
    assert hit.score == 0.7 and hit.distance == 0.25
    assert hit.properties == {"video_id": "v", "published_at": "2024-05-01T12:00:00.000000Z"}
    assert wm.to_search_hit(METADATA, obj, vector_only=True).score == pytest.approx(0.75)
    assert wm.to_stored_object(METADATA, obj).vector == [1.0, 0.0]


def test_client_errors_map_to_categories():
    from weaviate import exceptions as wx

    assert wc.failure(wx.WeaviateConnectionError("down")).category == "network"
    assert wc.failure(ValueError("bad query")).category == "store_error"


async def test_unreachable_server_is_a_clear_error(configure):
    """Nothing listens on port 9: a knowledge call fails with a connection error and a hint."""
    from video_research.knowledge.store import get_store

    configure(WEAVIATE_URL="http://127.0.0.1:9", WEAVIATE_GRPC_PORT="10")
    store = await get_store()
    assert store.backend == "weaviate"
    with pytest.raises(ToolFailure) as failure:
        await store.count("VideoMetadata")
    assert failure.value.category == "network"
    assert "127.0.0.1:9" in failure.value.message + (failure.value.hint or "")


class _Query:
    """What the backend asks of `collection.query`: each side's answer, recorded."""

    def __init__(self, keyword: list, nearest: list) -> None:
        self.keyword, self.nearest, self.asked = keyword, nearest, []

    def bm25(self, *, query, filters, limit, include_vector, return_metadata):
        self.asked.append(("bm25", limit, include_vector))
        return SimpleNamespace(objects=self.keyword[:limit])

    def near_vector(self, *, near_vector, limit, filters, include_vector, return_metadata):
        self.asked.append(("near_vector", limit, include_vector))
        return SimpleNamespace(objects=self.nearest[:limit])


class _OneCollection(ws.WeaviateStore):
    def __init__(self, query: _Query) -> None:  # no client: the collection is given
        self._query = query
        self.embedder = SimpleNamespace(identity="local:use-multilingual")

    def _collection(self, state):
        return SimpleNamespace(query=self._query)


def _object(uuid: str, title: str, vector: list[float], score=None, distance=None):
    """A result object as weaviate-client returns it (its own classes)."""
    from weaviate.collections.classes.internal import MetadataReturn, Object

    return Object(
        uuid=uuid,
        properties={"video_id": uuid, "title": title},
        metadata=MetadataReturn(score=score, distance=distance),
        references=None,
        vector={"default": vector},
        collection="VideoMetadata",
    )


def test_weaviate_hands_over_both_sides_as_candidates():
    """The backend's only job: each side's best, with ranks, the BM25 score and the exact
    cosine computed from the vector each object came with; the fusion is ranking's."""
    from video_research.knowledge.models import CollectionState

    keyword = [_object("a", "fourier", [1.0, 0.0], score=2.5), _object("b", "x", [0.0, 1.0], 1.0)]
    nearest = [_object("b", "x", [0.0, 1.0], distance=0.0), _object("c", "y", [0.6, 0.8], 0.2)]
    query = _Query(keyword, nearest)
    state = CollectionState(METADATA, "m", 2, True)
    found = _OneCollection(query)._candidates_sync(state, "fourier", [0.0, 1.0], None, 100)
    assert ("bm25", 100, True) in query.asked and ("near_vector", 100, True) in query.asked
    by_key = {c.key: c for c in found}
    assert by_key["a"].keyword == 2.5 and by_key["a"].keyword_rank == 0
    assert by_key["a"].vector_rank is None and by_key["a"].cosine == pytest.approx(0.0)
    assert by_key["b"].keyword_rank == 1 and by_key["b"].vector_rank == 0
    assert by_key["c"].cosine == pytest.approx(0.8) and by_key["c"].keyword is None
    # a keywords-only search asks no vector side
    words_only = _Query(keyword, nearest)
    _OneCollection(words_only)._candidates_sync(state, "fourier", None, None, 100)
    assert [side for side, *_ in words_only.asked] == ["bm25"]
