"""Collections: what a kind of stored object looks like, defined once for both backends.

A `CollectionDef` names a collection and lists its `Property`s. Both backends read the
same definition: the embedded store builds its SQLite tables and indexes from it, the
Weaviate backend its collection schema. Every collection gets the two common
properties `created_at` (date) and `source_tool` (text) whether or not it lists them.

What a property's flags mean, on both backends alike:

- `vectorize`: its value is part of the text the object's embedding is computed from
  (values joined in definition order, so put the most telling field first).
- `searchable`: its words are in the BM25 (keyword) index. Defaults to True for text and
  text[] properties that are not `exact`.
- `filterable`: it may be used in filters and in `order_by`; the embedded store keeps an
  index on it. A filter on a property that is not filterable is refused.
- `exact`: an identifier (IDs, paths, enum-like labels): equality compares the whole
  value, case-sensitively (Weaviate FIELD tokenization), and it stays out of BM25.
- `required`: `validate()` refuses objects without it.

The seven built-in knowledge collections are registered here; `KNOWLEDGE_COLLECTIONS`
lists them and Papers, the ones the knowledge tools search. The transcript, document and
paper packages register their own with `register_collection(CollectionDef(...))` when
their modules load. This package may not import them (they sit above it), so the tools
layer adds a registrar (`add_registrar`) that loads them on first use, and
`registered_collections()` and `any_collection()` see every collection.

`CollectionDef.validate(properties)` is the one gate every write goes through: unknown
keys are refused with the allowed list, values are checked against the declared types,
dates are normalised to one canonical UTC form (so range filters compare correctly on
both backends), None values count as absent.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from enum import StrEnum
from functools import cached_property
from typing import Any

from video_research.support.errors import invalid_input, not_found

NAME_PATTERN = re.compile(r"^[A-Z][A-Za-z0-9_]{0,63}$")
PROPERTY_PATTERN = re.compile(r"^[a-z_][a-z0-9_]{0,63}$")
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
"""What an int property holds: SQLite's and Weaviate's 64-bit integers."""


class DataType(StrEnum):
    """Property types; the values are Weaviate's data type names."""

    TEXT = "text"
    TEXT_ARRAY = "text[]"
    INT = "int"
    NUMBER = "number"
    BOOLEAN = "boolean"
    DATE = "date"

    @property
    def is_text(self) -> bool:
        return self in (DataType.TEXT, DataType.TEXT_ARRAY)

    @property
    def is_ordered(self) -> bool:
        """Range filters (gt, gte, lt, lte) apply."""
        return self in (DataType.INT, DataType.NUMBER, DataType.DATE)


@dataclass(frozen=True)
class Property:
    name: str
    data_type: DataType
    description: str = ""
    vectorize: bool = False
    searchable: bool | None = None
    """None: True for text and text[] unless `exact`."""
    filterable: bool = False
    exact: bool = False
    required: bool = False

    def __post_init__(self) -> None:
        if not PROPERTY_PATTERN.match(self.name):
            raise ValueError(f"property name {self.name!r} must match {PROPERTY_PATTERN.pattern}")
        if self.exact and self.data_type is not DataType.TEXT:
            raise ValueError(f"property {self.name}: only text properties can be exact")
        if self.vectorize and not self.data_type.is_text:
            raise ValueError(f"property {self.name}: only text properties can be vectorized")

    @property
    def in_bm25(self) -> bool:
        if self.searchable is not None:
            return self.searchable and self.data_type.is_text
        return self.data_type.is_text and not self.exact


def filterable(name: str, data_type: DataType, description: str) -> Property:
    """A property filters and `order_by` may name (each backend indexes it)."""
    return Property(name, data_type, description, filterable=True)


def identifier(name: str, description: str, *, required: bool = False) -> Property:
    """An identifier (an ID, a path, an enum-like label): filterable, compared whole, out
    of BM25. Every collection's identifiers are declared by this one rule."""
    return Property(
        name, DataType.TEXT, description, filterable=True, exact=True, required=required
    )


def blob(name: str, description: str) -> Property:
    """Text stored and returned, never searched: links, raw JSON and the like."""
    return Property(name, DataType.TEXT, description, searchable=False)


COMMON_PROPERTIES: tuple[Property, ...] = (
    Property("created_at", DataType.DATE, "When the object was stored (UTC)", filterable=True),
    identifier("source_tool", "Tool that produced the object"),
)


@dataclass(frozen=True)
class CollectionDef:
    name: str
    description: str
    properties: tuple[Property, ...]
    source_tools: tuple[str, ...] = ()
    """Producer tools that write here (documentation and knowledge_stats)."""
    indexes: tuple[tuple[str, ...], ...] = ()
    """Filterable properties indexed together, for a filter that names them together (the
    embedded store's compound expression indexes; each property has its own index too)."""
    by_name: dict[str, Property] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not NAME_PATTERN.match(self.name):
            raise ValueError(f"collection name {self.name!r} must match {NAME_PATTERN.pattern}")
        own = tuple(self.properties)
        names = [p.name for p in own]
        duplicates = {n for n in names if names.count(n) > 1}
        if duplicates:
            raise ValueError(f"{self.name}: properties listed twice: {sorted(duplicates)}")
        merged = tuple(p for p in COMMON_PROPERTIES if p.name not in names) + own
        object.__setattr__(self, "properties", merged)
        object.__setattr__(self, "by_name", {p.name: p for p in merged})
        for compound in self.indexes:
            unknown = [
                n for n in compound if n not in self.by_name or not self.by_name[n].filterable
            ]
            if unknown:
                raise ValueError(f"{self.name}: index on non-filterable properties {unknown}")

    @property
    def property_names(self) -> list[str]:
        return [p.name for p in self.properties]

    # Cached, and tuples so no caller can change the shared value: read for every
    # candidate of every search and every object indexed.
    @cached_property
    def vectorized(self) -> tuple[Property, ...]:
        return tuple(p for p in self.properties if p.vectorize)

    @cached_property
    def bm25(self) -> tuple[Property, ...]:
        return tuple(p for p in self.properties if p.in_bm25)

    @property
    def filterable(self) -> list[Property]:
        return [p for p in self.properties if p.filterable]

    def property(self, name: str) -> Property:
        try:
            return self.by_name[name]
        except KeyError:
            raise invalid_input(
                f"{self.name} has no property {name!r}.",
                hint=f"Properties of {self.name}: {', '.join(self.property_names)}.",
                allowed=self.property_names,
            ) from None

    def vector_text(self, properties: Mapping[str, Any]) -> str:
        """The text an object's embedding is computed from."""
        return _joined(self.vectorized, properties)

    def keyword_text(self, properties: Mapping[str, Any]) -> str:
        """The text the BM25 index holds for an object."""
        return _joined(self.bm25, properties)

    def validate(self, properties: Mapping[str, Any]) -> dict[str, Any]:
        """Checked and normalised properties, or ToolFailure(invalid_input) saying what is wrong.

        Unknown keys are refused (details.allowed lists the valid ones); None values are
        dropped; dates become canonical UTC strings; ints given as integral floats become ints.
        """
        if not isinstance(properties, Mapping):
            raise invalid_input(f"Properties for {self.name} must be an object.")
        unknown = sorted(k for k in properties if k not in self.by_name)
        if unknown:
            raise invalid_input(
                f"Unknown properties for {self.name}: {', '.join(unknown)}.",
                hint=f"Allowed properties of {self.name}: {', '.join(self.property_names)}.",
                unknown=unknown,
                allowed=self.property_names,
            )
        clean: dict[str, Any] = {}
        problems: list[dict[str, str]] = []
        for name, value in properties.items():
            if value is None:
                continue
            try:
                clean[name] = coerce(self.by_name[name].data_type, value)
            except ValueError as exc:
                problems.append({"path": f"$.properties.{name}", "message": str(exc)})
        missing = [p.name for p in self.properties if p.required and p.name not in clean]
        problems += [
            {"path": f"$.properties.{n}", "message": "required property missing"} for n in missing
        ]
        if problems:
            first = problems[0]
            raise invalid_input(
                f"Invalid properties for {self.name}: {first['path'].rsplit('.', 1)[-1]}: {first['message']}",
                hint="Fix the properties listed in details.errors.",
                errors=problems,
            )
        return clean

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able description (stored beside the data, shown by knowledge_stats)."""
        return {
            "name": self.name,
            "description": self.description,
            "properties": [
                {
                    "name": p.name,
                    "data_type": p.data_type.value,
                    "description": p.description,
                    "vectorize": p.vectorize,
                    "searchable": p.in_bm25,
                    "filterable": p.filterable,
                    "exact": p.exact,
                    "required": p.required,
                }
                for p in self.properties
            ],
        }


def _joined(props: Iterable[Property], values: Mapping[str, Any]) -> str:
    parts: list[str] = []
    for prop in props:
        value = values.get(prop.name)
        if isinstance(value, list):
            value = "; ".join(str(v) for v in value if v)
        if value:
            parts.append(str(value))
    return "\n".join(parts)


def canonical_date(value: Any) -> str:
    """A date as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC): one form, so strings compare in time order.

    Accepts datetime, date and ISO 8601 / RFC 3339 strings; naive times are taken as UTC.
    """
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(
                f"{value!r} is not an ISO 8601 date, e.g. 2024-05-01 or 2024-05-01T12:00:00Z"
            ) from None
    else:
        raise ValueError(f"expected a date string, got {type(value).__name__}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{value!r} is outside the years 1 to 9999 in UTC") from None
    # The year zero-padded by hand: strftime's %Y writes 999, not 0999, on glibc.
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S.%fZ")


def coerce(data_type: DataType, value: Any) -> Any:
    """`value` as `data_type` stores it, or ValueError saying what was expected."""
    if data_type is DataType.TEXT:
        if not isinstance(value, str):
            raise ValueError(f"expected text, got {type(value).__name__}")
        return value
    if data_type is DataType.TEXT_ARRAY:
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise ValueError("expected a list of strings")
        return list(value)
    if data_type is DataType.BOOLEAN:
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {type(value).__name__}")
        return value
    if data_type is DataType.DATE:
        return canonical_date(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, got {type(value).__name__}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("expected a finite number")
    if data_type is DataType.INT:
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"expected an integer, got {value}")
        if not INT_MIN <= value <= INT_MAX:
            raise ValueError("expected an integer from -2**63 to 2**63 - 1 (64 bits)")
        return int(value)
    try:
        return float(value)
    except OverflowError:
        raise ValueError("expected a number within the range of a 64-bit float") from None


_REGISTRY: dict[str, CollectionDef] = {}


def register_collection(definition: CollectionDef) -> CollectionDef:
    """Make a collection known to the store; registering the same definition again is a no-op."""
    existing = _REGISTRY.get(definition.name)
    if existing is not None and existing != definition:
        raise ValueError(f"collection {definition.name} is already registered differently")
    _REGISTRY[definition.name] = definition
    return definition


def get_collection(name: str) -> CollectionDef:
    """The registered definition, or ToolFailure(not_found) listing the known collections."""
    if name not in _REGISTRY:
        run_registrars()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise not_found(
            f"Unknown collection {name!r}.",
            hint=f"Known collections: {', '.join(sorted(_REGISTRY))}.",
        ) from None


Registrar = Callable[[], None]
_PENDING: list[Registrar] = []


def add_registrar(registrar: Registrar) -> None:
    """Have `registrar()` run before the registry is next read in full or misses a name.

    The transcript and document packages define collections of their own, but they sit
    above this package, which may not import them. The tools layer adds one registrar at
    start-up that has them register (their collections, citation labels, pinpointing),
    so `registered_collections()` sees every collection while listing tools or starting
    the server still imports none of them.
    """
    if registrar not in _PENDING:
        _PENDING.append(registrar)


def run_registrars() -> None:
    """Run the registrars still pending, each once (one that raises stays pending)."""
    while _PENDING:
        registrar = _PENDING.pop(0)
        try:
            registrar()
        except BaseException:
            _PENDING.insert(0, registrar)
            raise


def registered_collections() -> list[CollectionDef]:
    """Every collection there is: the knowledge ones and those the registrars add."""
    run_registrars()
    return list(_REGISTRY.values())


def any_collection(name: str) -> CollectionDef:
    """Any collection, transcript and document ones included, or not_found listing them."""
    run_registrars()
    return get_collection(name)


def _text(name: str, description: str, **flags: Any) -> Property:
    return Property(name, DataType.TEXT, description, **flags)


def _texts(name: str, description: str, **flags: Any) -> Property:
    return Property(name, DataType.TEXT_ARRAY, description, **flags)


RESEARCH_FINDINGS = register_collection(
    CollectionDef(
        "ResearchFindings",
        "Research findings and evidence assessments with their evidence tiers",
        (
            _text("topic", "Research topic", vectorize=True),
            _text("claim", "The finding or claim", vectorize=True),
            _text("reasoning", "Why the claim got its tier", vectorize=True),
            _text("executive_summary", "Summary of the whole report", vectorize=True),
            identifier("scope", "Research depth"),
            identifier(
                "evidence_tier", "CONFIRMED, STRONG INDICATOR, INFERENCE, SPECULATION or UNKNOWN"
            ),
            Property("confidence", DataType.NUMBER, "Confidence 0-1", filterable=True),
            _texts("supporting", "Supporting evidence"),
            _texts("contradicting", "Contradicting evidence"),
            _texts("sources", "Sources the assessment was given"),
            _texts("open_questions", "Open research questions"),
            _texts("recommendations", "Recommended next steps"),
            _text("methodology_critique", "Critique of the method"),
            identifier("report_uuid", "The report this finding belongs to"),
        ),
        ("research_deep", "research_assess_evidence"),
    )
)

VIDEO_ANALYSES = register_collection(
    CollectionDef(
        "VideoAnalyses",
        "Video analyses from video_analyze and video_batch_analyze",
        (
            _text("title", "Video title", vectorize=True),
            _text("summary", "Analysis summary", vectorize=True),
            _texts("key_points", "Key points", vectorize=True),
            _text("instruction", "The analysis instruction", vectorize=True),
            _texts("topics", "Topics covered", vectorize=True),
            identifier("video_id", "YouTube video ID or local file hash"),
            identifier("source_url", "YouTube URL or file path"),
            identifier("sentiment", "Overall sentiment"),
            blob("timestamps_json", "Timestamps as JSON"),
            blob("raw_result", "The full result as JSON"),
        ),
        ("video_analyze", "video_batch_analyze"),
    )
)

CONTENT_ANALYSES = register_collection(
    CollectionDef(
        "ContentAnalyses",
        "Analyses of documents, web pages and text from content_analyze",
        (
            _text("title", "Content title", vectorize=True),
            _text("summary", "Analysis summary", vectorize=True),
            _texts("key_points", "Key points", vectorize=True),
            _texts("entities", "Named entities", vectorize=True),
            _text("instruction", "The analysis instruction", vectorize=True),
            identifier("source", "URL, file path or (text)"),
            _text("structure_notes", "How the content is organised"),
            _text("quality_assessment", "Quality of the content"),
            blob("raw_result", "The full result as JSON"),
        ),
        ("content_analyze",),
    )
)

VIDEO_METADATA = register_collection(
    CollectionDef(
        "VideoMetadata",
        "YouTube video metadata, one object per video (deterministic ID from the video ID)",
        (
            _text("title", "Video title", vectorize=True),
            _text("description", "Video description", vectorize=True),
            _texts("tags", "Video tags", vectorize=True, filterable=True),
            _text("channel_title", "Channel name", vectorize=True),
            _text("category", "Category label"),
            identifier("video_id", "YouTube video ID", required=True),
            identifier("channel_id", "YouTube channel ID"),
            identifier("duration", "ISO 8601 duration, e.g. PT12M3S"),
            Property("duration_seconds", DataType.INT, "Duration in seconds", filterable=True),
            Property("view_count", DataType.INT, "Views", filterable=True),
            Property("like_count", DataType.INT, "Likes", filterable=True),
            Property("comment_count", DataType.INT, "Comments", filterable=True),
            Property("published_at", DataType.DATE, "Publication time", filterable=True),
            identifier("definition", "hd or sd"),
            Property("has_captions", DataType.BOOLEAN, "Whether captions exist", filterable=True),
            identifier("default_language", "Default language code"),
        ),
        ("video_metadata",),
    )
)

SESSION_TRANSCRIPTS = register_collection(
    CollectionDef(
        "SessionTranscripts",
        "Turns of multi-turn video sessions (video_continue_session)",
        (
            _text("video_title", "Title of the session's video", vectorize=True),
            _text("turn_prompt", "The question asked", vectorize=True),
            _text("turn_response", "The answer", vectorize=True),
            identifier("session_id", "Session ID"),
            Property("turn_index", DataType.INT, "Turn number in the session", filterable=True),
            identifier("source_url", "The session's video URL or file"),
        ),
        ("video_continue_session",),
    )
)

WEB_SEARCH_RESULTS = register_collection(
    CollectionDef(
        "WebSearchResults",
        "Grounded web searches (web_search)",
        (
            _text("query", "Search query", vectorize=True),
            _text("response", "Grounded answer", vectorize=True),
            blob("sources_json", "Grounding sources (title, url) as JSON"),
        ),
        ("web_search",),
    )
)

RESEARCH_PLANS = register_collection(
    CollectionDef(
        "ResearchPlans",
        "Research orchestration plans (research_plan)",
        (
            _text("topic", "Research topic", vectorize=True),
            _texts("task_decomposition", "Task breakdown", vectorize=True),
            identifier("scope", "Research depth"),
            blob("phases_json", "Phases as JSON"),
            blob("recommended_models_json", "Model per phase as JSON"),
        ),
        ("research_plan",),
    )
)

KNOWLEDGE_COLLECTIONS: tuple[str, ...] = (
    RESEARCH_FINDINGS.name,
    VIDEO_ANALYSES.name,
    CONTENT_ANALYSES.name,
    VIDEO_METADATA.name,
    SESSION_TRANSCRIPTS.name,
    WEB_SEARCH_RESULTS.name,
    RESEARCH_PLANS.name,
    "Papers",  # registered by the papers package (papers.collection)
)
"""The collections of stored results: the seven built-in ones, and Papers (what
knowledge_ingest writes to)."""

SEARCHED_COLLECTIONS: tuple[str, ...] = (
    *KNOWLEDGE_COLLECTIONS,
    "TranscriptChunks",  # registered by the transcripts package (transcripts.indexer)
    "DocumentChunks",  # registered by the documents package (documents.library)
)
"""What knowledge_search and knowledge_ask search when no collection is named: every
stored result, transcript moment and document passage. TranscriptVideos is left out: its
objects repeat their chunks' words a video at a time, so it would only echo them."""


def knowledge_collection(name: str) -> CollectionDef:
    """One of the knowledge collections, or invalid_input naming them."""
    if name not in KNOWLEDGE_COLLECTIONS:
        raise invalid_input(
            f"{name!r} is not a knowledge collection.",
            hint=f"Use one of: {', '.join(KNOWLEDGE_COLLECTIONS)}.",
        )
    return get_collection(name)
