# Generated from schemas/ by `make types` (tests/generate_schema_types.py,
# datamodel-code-generator). Do not edit: change the schema and regenerate.

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias

from typing_extensions import TypedDict

SharedDefinitions: TypeAlias = Any


ThinkingLevel: TypeAlias = Literal["minimal", "low", "medium", "high"]


ModelPreset: TypeAlias = Literal["best", "stable", "budget"]


Scope: TypeAlias = Literal["quick", "moderate", "deep", "comprehensive"]


YoutubeUrl: TypeAlias = str


YoutubeUrlOrFile: TypeAlias = str


ContentId: TypeAlias = str


class OutputSchema(TypedDict):
    pass


DateTime: TypeAlias = str


Role: TypeAlias = Literal["viewer", "blessed", "admin"]


FilePath: TypeAlias = str


Instruction: TypeAlias = str


SessionId: TypeAlias = str


KnowledgeCollection: TypeAlias = Literal[
    "ResearchFindings",
    "VideoAnalyses",
    "ContentAnalyses",
    "VideoMetadata",
    "SessionTranscripts",
    "WebSearchResults",
    "ResearchPlans",
    "Papers",
]


StoredCollection: TypeAlias = Literal[
    "ResearchFindings",
    "VideoAnalyses",
    "ContentAnalyses",
    "VideoMetadata",
    "SessionTranscripts",
    "WebSearchResults",
    "ResearchPlans",
    "Papers",
    "TranscriptChunks",
    "TranscriptVideos",
    "TranscriptWindows",
    "DocumentChunks",
]


ObjectId: TypeAlias = str


class MetadataFilter(TypedDict, closed=True):
    property: str
    op: Literal[
        "eq", "ne", "in", "gt", "gte", "lt", "lte", "prefix", "contains_any", "contains_all"
    ]
    value: str | float | bool | list[str | float | bool]


MetadataFilters: TypeAlias = list[MetadataFilter]


class Where(TypedDict):
    kind: str
    what: str
    label: str
    url: str | None
    video_id: NotRequired[str]
    start_time: NotRequired[float]
    end_time: NotRequired[float]
    source_path: NotRequired[str]
    page: NotRequired[int]
    page_end: NotRequired[int]
    paper_id: NotRequired[str]


Relevance: TypeAlias = float


Weak: TypeAlias = bool


class Injection(TypedDict, closed=True):
    path: str
    start: int
    end: int
    text: str
    kinds: list[
        Literal[
            "override",
            "new_task",
            "role",
            "prompt_leak",
            "tool_call",
            "exfiltration",
            "address",
            "output",
        ]
    ]
    languages: NotRequired[list[str]]
    score: NotRequired[float]
    note: str


Injections: TypeAlias = list[Injection]


class KnowledgeHit(Where, closed=True):
    collection: str
    object_id: str
    score: float
    distance: NotRequired[float]
    properties: dict[str, Any]
    relevance: NotRequired[Relevance]
    weak: NotRequired[Weak]
