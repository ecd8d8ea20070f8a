"""knowledge_fetch and knowledge_schema: read stored objects by ID, and see what is stored.

Both cover every collection of the store: the knowledge collections, the transcript and
document ones, and Papers. Large blobs kept for the server's own use (the raw Gemini
result, a transcript's every cue) are left out of fetched objects unless `full`.
"""

from __future__ import annotations

from typing import Any

from video_research.knowledge.collections import (
    KNOWLEDGE_COLLECTIONS,
    DataType,
    any_collection,
    registered_collections,
)
from video_research.knowledge.passages import ANSWER_COLLECTIONS
from video_research.knowledge.store import get_store, normalise_uuid
from video_research.tools.context import CallContext

BULKY_PROPERTIES = frozenset({"raw_result", "segments_json"})
"""Left out of knowledge_fetch unless full: they can be megabytes."""

OPERATORS: dict[str, list[str]] = {
    "text": ["eq", "ne", "in", "prefix"],
    "text[]": ["contains_any", "contains_all"],
    "int": ["eq", "ne", "in", "gt", "gte", "lt", "lte"],
    "number": ["eq", "ne", "in", "gt", "gte", "lt", "lte"],
    "date": ["eq", "ne", "in", "gt", "gte", "lt", "lte"],
    "boolean": ["eq", "ne"],
}


async def knowledge_fetch(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    wanted = list(dict.fromkeys(normalise_uuid(i) for i in args["object_ids"]))
    names = (
        [any_collection(args["collection"]).name]
        if args.get("collection")
        else [c.name for c in registered_collections()]
    )
    store = await get_store()
    found: dict[str, dict[str, Any]] = {}
    for name in names:
        for object_id in wanted:
            if object_id in found:
                continue
            stored = await store.get(name, object_id)
            if stored is None:
                continue
            properties = stored.properties
            omitted = []
            if not args["full"]:
                omitted = sorted(k for k in properties if k in BULKY_PROPERTIES)
                properties = {k: v for k, v in properties.items() if k not in BULKY_PROPERTIES}
            found[object_id] = {
                "collection": name,
                "object_id": object_id,
                "properties": properties,
                **({"omitted": omitted} if omitted else {}),
            }
    return {
        "objects": [found[i] for i in wanted if i in found],
        "not_found": [i for i in wanted if i not in found],
    }


def _kind(name: str) -> str:
    if name in KNOWLEDGE_COLLECTIONS:
        return "knowledge"
    return "transcripts" if name.startswith("Transcript") else "documents"


async def knowledge_schema(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    definitions = (
        [any_collection(args["collection"])] if args.get("collection") else registered_collections()
    )
    return {
        "collections": [
            {
                "name": d.name,
                "description": d.description,
                "group": _kind(d.name),
                "searched_by_knowledge_search": d.name in KNOWLEDGE_COLLECTIONS,
                "searched_by_knowledge_ask": d.name in ANSWER_COLLECTIONS,
                "properties": [
                    {
                        "name": p.name,
                        "type": p.data_type.value,
                        "filterable": p.filterable,
                        "searchable": p.in_bm25,
                        "vectorized": p.vectorize,
                        "description": p.description,
                    }
                    for p in d.properties
                ],
            }
            for d in definitions
        ],
        "filter_operators": {t.value: OPERATORS[t.value] for t in DataType},
    }
