"""Write-through from producer tools to the knowledge store.

Each producer tool calls exactly one of these after its result is ready. They never
raise: a store failure is logged (WARNING, with the collection) and the tool's result is
still returned. They return the stored object's UUID, or None when nothing was stored
(a failure, or KNOWLEDGE_WRITE_THROUGH=false).

| tool                      | function                    | collection         |
|---------------------------|-----------------------------|--------------------|
| video_analyze             | store_video_analysis        | VideoAnalyses      |
| video_batch_analyze       | store_video_analysis        | VideoAnalyses      |
| video_continue_session    | store_session_turn          | SessionTranscripts |
| video_metadata            | store_video_metadata        | VideoMetadata      |
| research_deep             | store_research_finding      | ResearchFindings   |
| research_plan             | store_research_plan         | ResearchPlans      |
| research_assess_evidence  | store_evidence_assessment   | ResearchFindings   |
| content_analyze           | store_content_analysis      | ContentAnalyses    |
| web_search                | store_web_search            | WebSearchResults   |
| research_paper_* | store_papers              | Papers             |
| research_web_status       | store_deep_research         | ResearchFindings   |
| research_document         | store_document_research     | ResearchFindings   |

Results come from Gemini (or a caller's own output_schema), so fields may be missing or
shaped differently: each function keeps what fits the collection's types and leaves the
rest out (the whole result is kept as JSON in `raw_result` where the collection has it).
`store_video_metadata` uses a deterministic UUID (`generate_uuid5(video_id)`, the same
on both backends), so fetching a video again updates its object instead of adding one.
Analyses do too: `store_video_analysis` and `store_content_analysis` key their object by
`analysis_uuid(collection, content, instruction, model)` (content = video ID or file hash,
or the URL, file hash or text hash analysed; instruction = everything that shapes the
answer: the instruction, a custom output schema, a clip), so repeating an analysis
updates one object (3 calls -> 1 object) and a different question adds another.
`store_research_finding` stores the report and each of its findings as separate objects
(findings carry `report_uuid`) and returns the report's UUID.
"""

from __future__ import annotations

import json
import logging
import uuid as uuid_lib
from collections.abc import Mapping, Sequence
from typing import Any

from video_research.knowledge.collections import coerce, get_collection
from video_research.knowledge.store import generate_uuid5, get_store
from video_research.support.services import current_settings

logger = logging.getLogger(__name__)

_TEXT_KEYS = ("text", "point", "claim", "title", "description", "name", "summary")


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, Mapping):
        for key in _TEXT_KEYS:
            if isinstance(value.get(key), str):
                return value[key]
    return _dumps(value)


def _as_texts(value: Any) -> list[str] | None:
    if value is None:
        return None
    items = value if isinstance(value, list | tuple) else [value]
    texts = [_as_text(item) for item in items]
    return [t for t in texts if t]


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, default=str)


def _fitted(collection: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """The properties the collection can hold, each coerced to its type; the rest dropped."""
    definition = get_collection(collection)
    kept: dict[str, Any] = {}
    for name, value in properties.items():
        if value is None or value == "" or name not in definition.by_name:
            continue
        data_type = definition.by_name[name].data_type
        if data_type.is_text:
            value = _as_texts(value) if data_type.value == "text[]" else _as_text(value)
        elif data_type.value in ("int", "number") and isinstance(value, str):
            value = _number(value)
        elif data_type.value == "boolean" and isinstance(value, str):
            value = value.strip().lower() in ("true", "1", "yes")
        try:
            kept[name] = coerce(data_type, value)
        except ValueError as exc:
            logger.debug("write-through to %s: dropping %s (%s)", collection, name, exc)
    return kept


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


async def _write(
    collection: str, objects: list[dict[str, Any]], uuids: list[str] | None = None
) -> str | None:
    """Store objects (upserting when UUIDs are given); the first UUID, or None on failure."""
    if not current_settings().knowledge_write_through:
        return None
    try:
        store = await get_store()
        fitted = [_fitted(collection, o) for o in objects]
        ids = await store.insert_many(collection, fitted, uuids=uuids, upsert=uuids is not None)
        return ids[0]
    except Exception as exc:
        logger.warning(
            "knowledge write-through to %s failed (the tool result is unaffected): %s",
            collection,
            exc,
        )
        return None


def analysis_uuid(collection: str, content: str, instruction: str, model: str) -> str:
    """The deterministic id of an analysis: the same content, question and model give the
    same object (the same on both backends, like generate_uuid5 everywhere)."""
    return generate_uuid5("\n".join((content, instruction, model)), namespace=collection)


async def store_video_analysis(
    result: dict[str, Any],
    content_id: str,
    instruction: str,
    source_url: str = "",
    source_tool: str = "video_analyze",
    *,
    model: str | None = None,
    key_instruction: str | None = None,
) -> str | None:
    """`key_instruction` (default: `instruction`) is what the id is computed from: pass the
    instruction with whatever else shapes the answer (output schema, clip, sampling)."""
    model = model or str(result.get("model") or current_settings().default_model)
    object_id = analysis_uuid("VideoAnalyses", content_id, key_instruction or instruction, model)
    return await _write(
        "VideoAnalyses",
        [
            {
                "video_id": content_id,
                "source_url": source_url,
                "instruction": instruction,
                "title": result.get("title"),
                "summary": result.get("summary"),
                "key_points": result.get("key_points"),
                "topics": result.get("topics"),
                "sentiment": result.get("sentiment"),
                "timestamps_json": _dumps(result.get("timestamps")),
                "raw_result": _dumps(result),
                "source_tool": source_tool,
            }
        ],
        [object_id],
    )


async def store_session_turn(
    session_id: str,
    video_title: str,
    turn_index: int,
    prompt: str,
    response: str,
    source_url: str = "",
) -> str | None:
    return await _write(
        "SessionTranscripts",
        [
            {
                "session_id": session_id,
                "video_title": video_title,
                "turn_index": turn_index,
                "turn_prompt": prompt,
                "turn_response": response,
                "source_url": source_url,
                "source_tool": "video_continue_session",
            }
        ],
    )


async def store_video_metadata(metadata: Mapping[str, Any]) -> str | None:
    """Deterministic UUID from metadata["video_id"]: a repeated fetch updates, never duplicates."""
    video_id = metadata.get("video_id")
    if not video_id:
        logger.warning("knowledge write-through to VideoMetadata skipped: no video_id")
        return None
    properties = {
        **metadata,
        "channel_title": metadata.get("channel_title") or metadata.get("channel"),
        "has_captions": metadata.get("has_captions", metadata.get("caption")),
        "source_tool": "video_metadata",
    }
    return await _write("VideoMetadata", [properties], [generate_uuid5(video_id)])


async def store_research_finding(report: Mapping[str, Any]) -> str | None:
    report_uuid = str(uuid_lib.uuid4())
    common = {
        "topic": report.get("topic"),
        "scope": report.get("scope"),
        "source_tool": "research_deep",
    }
    summary = {
        **common,
        "executive_summary": report.get("executive_summary"),
        "open_questions": report.get("open_questions"),
        "methodology_critique": report.get("methodology_critique"),
        "recommendations": report.get("recommendations"),
    }
    findings = [f for f in report.get("findings") or [] if isinstance(f, Mapping)]
    objects = [summary] + [
        {
            **common,
            "claim": finding.get("claim"),
            "evidence_tier": finding.get("evidence_tier") or finding.get("tier"),
            "confidence": finding.get("confidence"),
            "reasoning": finding.get("reasoning"),
            "supporting": finding.get("supporting"),
            "contradicting": finding.get("contradicting"),
            "report_uuid": report_uuid,
        }
        for finding in findings
    ]
    uuids = [report_uuid] + [str(uuid_lib.uuid4()) for _ in findings]
    return await _write("ResearchFindings", objects, uuids)


async def store_research_plan(plan: Mapping[str, Any]) -> str | None:
    return await _write(
        "ResearchPlans",
        [
            {
                "topic": plan.get("topic"),
                "scope": plan.get("scope"),
                "task_decomposition": plan.get("task_decomposition"),
                "phases_json": _dumps(plan.get("phases")),
                "recommended_models_json": _dumps(plan.get("recommended_models")),
                "source_tool": "research_plan",
            }
        ],
    )


async def store_evidence_assessment(
    assessment: Mapping[str, Any], claim: str, sources: list[str]
) -> str | None:
    return await _write(
        "ResearchFindings",
        [
            {
                "claim": assessment.get("claim") or claim,
                "evidence_tier": assessment.get("tier") or assessment.get("evidence_tier"),
                "confidence": assessment.get("confidence"),
                "reasoning": assessment.get("reasoning"),
                "supporting": assessment.get("supporting"),
                "contradicting": assessment.get("contradicting"),
                "sources": sources,
                "source_tool": "research_assess_evidence",
            }
        ],
    )


async def store_content_analysis(
    result: dict[str, Any],
    source: str,
    instruction: str,
    *,
    content_key: str | None = None,
    model: str | None = None,
    key_instruction: str | None = None,
    source_tool: str = "content_analyze",
) -> str | None:
    """`content_key` identifies the content (URL, file or text hash; default `source`);
    with `key_instruction` and `model` it makes the deterministic id."""
    model = model or current_settings().default_model
    object_id = analysis_uuid(
        "ContentAnalyses", content_key or source, key_instruction or instruction, model
    )
    return await _write(
        "ContentAnalyses",
        [
            {
                "source": source,
                "instruction": instruction,
                "title": result.get("title"),
                "summary": result.get("summary"),
                "key_points": result.get("key_points"),
                "entities": result.get("entities"),
                "structure_notes": result.get("structure_notes"),
                "quality_assessment": result.get("quality_assessment"),
                "raw_result": _dumps(result),
                "source_tool": source_tool,
            }
        ],
        [object_id],
    )


async def store_web_search(
    query: str, response: str, sources: Sequence[Mapping[str, Any]]
) -> str | None:
    return await _write(
        "WebSearchResults",
        [
            {
                "query": query,
                "response": response,
                "sources_json": _dumps(sources),
                "source_tool": "web_search",
            }
        ],
    )


def paper_uuid(paper_id: str) -> str:
    """A paper's object ID, from its Semantic Scholar ID: finding it again updates it."""
    return generate_uuid5(paper_id, "paper:")


def _paper_properties(paper: dict[str, Any], source_tool: str) -> dict[str, Any]:
    """A paper as the tools return it, as a Papers object (what does not fit is dropped)."""
    return {
        "title": paper.get("title"),
        "tldr": paper.get("tldr"),
        "abstract": paper.get("abstract"),
        "authors": [a["name"] for a in paper.get("authors") or [] if a.get("name")],
        "venue": paper.get("venue"),
        "paper_id": paper.get("paper_id"),
        "doi": paper.get("doi"),
        "arxiv_id": paper.get("arxiv_id"),
        "year": paper.get("year"),
        "publication_date": paper.get("publication_date"),
        "citation_count": paper.get("citation_count"),
        "influential_citation_count": paper.get("influential_citation_count"),
        "fields_of_study": paper.get("fields_of_study"),
        "publication_types": paper.get("publication_types"),
        "is_open_access": paper.get("is_open_access"),
        "url": paper.get("url"),
        "open_access_pdf": paper.get("open_access_pdf"),
        "source_tool": source_tool,
    }


async def store_papers(papers: list[dict[str, Any]], source_tool: str) -> int:
    """Upsert papers into Papers under IDs made from their paper IDs; how many were written.

    Papers is defined by the papers package, which registers it on the knowledge layer's
    first lookup of a collection it does not know (`collections.add_registrar`).
    """
    unique = {p["paper_id"]: p for p in papers if p.get("paper_id")}
    if not unique:
        return 0
    written = await _write(
        "Papers",
        [_paper_properties(p, source_tool) for p in unique.values()],
        [paper_uuid(pid) for pid in unique],
    )
    return 0 if written is None else len(unique)


async def store_deep_research(task: Mapping[str, Any]) -> str | None:
    """A finished Deep Research report (research_web_status) as one ResearchFindings object."""
    return await _write(
        "ResearchFindings",
        [
            {
                "topic": task.get("topic"),
                "executive_summary": task.get("report"),
                "scope": "deep-research-agent",
                "sources": [s.get("url") for s in task.get("sources") or [] if s.get("url")],
                "source_tool": "research_web_status",
            }
        ],
        [generate_uuid5(task["task_id"], "deep-research:")],
    )


async def store_document_research(report: Mapping[str, Any]) -> str | None:
    """A research_document report and its cited findings, like store_research_finding."""
    report_uuid = str(uuid_lib.uuid4())
    labels = {c["id"]: c["label"] for c in report.get("sources") or []}
    common = {
        "topic": report.get("question"),
        "scope": report.get("scope"),
        "source_tool": "research_document",
    }
    objects = [
        {
            **common,
            "executive_summary": report.get("executive_summary"),
            "open_questions": report.get("open_questions"),
            "methodology_critique": report.get("methodology_critique"),
            "recommendations": report.get("recommendations"),
            "sources": list(labels.values()),
        }
    ] + [
        {
            **common,
            "claim": finding.get("claim"),
            "evidence_tier": finding.get("evidence_tier"),
            "confidence": finding.get("confidence"),
            "reasoning": finding.get("reasoning"),
            "sources": [labels[i] for i in finding.get("citations") or [] if i in labels],
            "report_uuid": report_uuid,
        }
        for finding in report.get("findings") or []
    ]
    uuids = [report_uuid] + [str(uuid_lib.uuid4()) for _ in objects[1:]]
    return await _write("ResearchFindings", objects, uuids)
