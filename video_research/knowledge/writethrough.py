"""Write-through from producer tools to the knowledge store (seed 000 section 4 table).

Each producer tool calls exactly one of these after its result is ready. They never
raise: a store failure is logged and the tool's result is still returned. They return
the stored object's UUID, or None when nothing was stored.

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

(The knowledge-store issue replaces these no-op bodies with real writes; the signatures
are the contract the producer tools code against.)
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)


async def store_video_analysis(
    result: dict[str, Any],
    content_id: str,
    instruction: str,
    source_url: str = "",
    source_tool: str = "video_analyze",
) -> str | None:
    return None


async def store_session_turn(
    session_id: str,
    video_title: str,
    turn_index: int,
    prompt: str,
    response: str,
    source_url: str = "",
) -> str | None:
    return None


async def store_video_metadata(metadata: dict[str, Any]) -> str | None:
    """Deterministic UUID from metadata["video_id"]: a repeated fetch updates, never duplicates."""
    return None


async def store_research_finding(report: dict[str, Any]) -> str | None:
    return None


async def store_research_plan(plan: dict[str, Any]) -> str | None:
    return None


async def store_evidence_assessment(
    assessment: dict[str, Any], claim: str, sources: list[str]
) -> str | None:
    return None


async def store_content_analysis(
    result: dict[str, Any], source: str, instruction: str
) -> str | None:
    return None


async def store_web_search(query: str, response: str, sources: list[dict[str, Any]]) -> str | None:
    return None
