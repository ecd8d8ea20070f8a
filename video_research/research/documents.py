"""Evidence for research_document: numbered source passages, and the check that every claim cites one.

Sources come from three places, each passage with a short ID (`S1`, `S2`, ...) the model
cites and a label a reader recognises:

- files: read like document_ingest reads them (documents.extract: PDF pages, PPTX slides,
  DOCX/HTML/Markdown/text headings), chunked by heading, each passage labelled
  "report.pdf, p. 3, Results". Confined to the roots the caller may read
  (paths.readable_roots: blessed and up), DOCUMENTS_MAX_FILE_MB each.
- URLs: fetched by Gemini's URL context through the same function content_analyze uses
  (content.analysis.ask_about_url), which quotes the page's relevant passages verbatim;
  labelled with the page title and URL.
- the knowledge base (unless turned off): the best transcript moments, ingested document
  passages and papers for the question (knowledge.passages), labelled as knowledge_ask
  labels them ("Talk at 12:34", "report.pdf, p. 3", "Lo et al. (2020), ...").

A source that cannot be read fails alone (listed in `consulted` with its ToolError); the
research goes on while at least one passage remains. When the passages would not fit
the model's budget, the ones sharing the most words with the question are kept, in
document order.

`cited(...)` keeps only citations of passages that exist; a claim left citing nothing is
dropped and counted, so every claim in a report names where it comes from.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from video_research.support import paths
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input, make_tool_error
from video_research.support.isolation import parse_isolated
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.research_document_output import (
        Finding,
        KeyInsight,
    )

Cited = TypeVar("Cited", "Finding", "KeyInsight")

logger = logging.getLogger(__name__)

PASSAGE_TOKENS = 400
"""Target size of a file passage, in the embedding model's word pieces."""
BUDGET_CHARS = 400_000
"""Most characters of passages sent to the model (about 100k tokens)."""
KNOWLEDGE_COLLECTIONS = ("TranscriptChunks", "DocumentChunks", "Papers")
URL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["title", "passages"],
    "properties": {
        "title": {"type": "string"},
        "passages": {
            "type": "array",
            "maxItems": 20,
            "items": {"type": "string", "description": "A verbatim quote from the page."},
        },
    },
}


@dataclass
class Source:
    id: str
    kind: str
    """file, url, video, document or paper"""
    label: str
    text: str
    url: str | None = None
    path: str | None = None
    page: int | None = None
    page_end: int | None = None
    collection: str | None = None
    object_id: str | None = None

    def public(self) -> dict[str, Any]:
        out = {"id": self.id, "kind": self.kind, "label": self.label, "url": self.url}
        for key in ("path", "page", "page_end", "collection", "object_id"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass
class Evidence:
    sources: list[Source] = field(default_factory=list)
    consulted: dict[str, Any] = field(
        default_factory=lambda: {"files": [], "urls": [], "knowledge_passages": 0}
    )
    trimmed: int = 0
    """Passages left out to fit the budget."""

    def add(self, kind: str, label: str, text: str, **where: Any) -> None:
        self.sources.append(Source(f"S{len(self.sources) + 1}", kind, label, text, **where))

    @property
    def by_id(self) -> dict[str, Source]:
        return {s.id: s for s in self.sources}

    def numbered(self) -> str:
        return "\n\n".join(f"[{s.id}] {s.label}\n{s.text}" for s in self.sources)

    def inventory(self) -> str:
        """One line per consulted source, for the scoping phase."""
        labels = dict.fromkeys(s.label.split(", p")[0] for s in self.sources)
        return "\n".join(f"- {label}" for label in labels)


def _read_source(path: Path, settings: Any) -> tuple[bytes, Any]:
    """(bytes, document type) of one file, checked as document_ingest checks it."""
    from video_research.documents.extract import EXTENSIONS, document_type_for

    document_type = document_type_for(path)
    if document_type is None:
        raise invalid_input(
            f"{path.name}: unsupported file type {path.suffix or '(none)'!r}.",
            hint=f"research_document reads {', '.join(sorted(EXTENSIONS))}.",
        )
    if not path.is_file():
        raise ToolFailure(ErrorCategory.NOT_FOUND, f"No such file: {path}")
    size = path.stat().st_size
    if size > settings.documents_max_file_mb * 1024 * 1024:
        raise ToolFailure(
            ErrorCategory.TOO_LARGE,
            f"{path.name} is {size / 1024 / 1024:.1f} MB, over DOCUMENTS_MAX_FILE_MB "
            f"({settings.documents_max_file_mb:g}).",
        )
    return path.read_bytes(), document_type


async def _file_passages(path: Path, settings: Any) -> tuple[list[dict[str, Any]], int | None]:
    """(passages with page and heading, page count) of one file, read as document_ingest
    reads it: parsed in a bounded worker process (support/isolation.py), never here."""
    from video_research.documents.extract import extract
    from video_research.documents.guards import ArchiveLimits

    data, document_type = await asyncio.to_thread(_read_source, path, settings)
    extracted = await parse_isolated(
        path.name, extract, data, document_type, path.name, limits=ArchiveLimits.from_settings()
    )
    return await asyncio.to_thread(_passages, path, document_type, extracted)


def _passages(
    path: Path, document_type: Any, extracted: Any
) -> tuple[list[dict[str, Any]], int | None]:
    from video_research.documents.chunking import chunk_blocks
    from video_research.documents.extract import no_text
    from video_research.documents.library import citation

    chunks = chunk_blocks(extracted.blocks, PASSAGE_TOKENS, page_breaks=extracted.pages_with_breaks)
    if not chunks:
        raise no_text(path.name, document_type)
    passages = []
    for chunk in chunks:
        where = {"page": chunk.page, "page_end": chunk.page_end}
        label = citation(
            {
                "file_name": path.name,
                "source_path": str(path),
                "document_type": document_type.value,
                "heading_path": chunk.heading_path,
                **where,
            }
        )
        passages.append({"label": label, "text": chunk.text, **where})
    return passages, extracted.page_count


async def gather(
    question: str,
    *,
    file_paths: list[str],
    urls: list[str],
    knowledge_passages: int,
    ctx: Any,
    read_url: Any,
) -> Evidence:
    """Every passage the research may cite, numbered; sources that fail are listed, not fatal.

    `read_url(url, question)` returns (title, [quotes]) for a page; the handler passes the
    URL fetch it uses (the same as content_analyze's), so the URL policy applies there.
    """
    evidence = Evidence()
    settings = current_settings()
    if file_paths:
        roots, client_roots = await paths.readable_roots(ctx)
    for raw in dict.fromkeys(file_paths):
        entry: dict[str, Any] = {"path": raw}
        try:
            path = paths.confine_to(raw, roots, client_roots)
            entry["path"] = str(path)
            found, pages = await _file_passages(path, settings)
            for p in found:
                evidence.add(
                    "file",
                    p["label"],
                    p["text"],
                    path=str(path),
                    page=p["page"],
                    page_end=p["page_end"],
                )
            entry.update(status="ok", passages=len(found), pages=pages)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            entry.update(status="error", error=make_tool_error(exc).to_json_dict())
            logger.info("research_document: %s failed: %s", raw, entry["error"]["error"])
        evidence.consulted["files"].append(entry)
    for url in dict.fromkeys(urls):
        entry = {"url": url}
        try:
            title, quotes = await read_url(url, question)
            label = f"{title} ({url})" if title else url
            for quote in quotes:
                evidence.add("url", label, quote, url=url)
            entry.update(status="ok", passages=len(quotes), title=title)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            entry.update(status="error", error=make_tool_error(exc).to_json_dict())
        evidence.consulted["urls"].append(entry)
    if knowledge_passages:
        from video_research.knowledge.passages import retrieve

        retrieved = await retrieve(
            question, collections=list(KNOWLEDGE_COLLECTIONS), limit=knowledge_passages, alpha=0.5
        )
        for passage in retrieved.passages:
            cite = passage.citation
            props = passage.properties
            evidence.add(
                cite["kind"],
                cite["label"],
                passage.text,
                url=cite["url"],
                path=props.get("source_path"),
                page=props.get("page"),
                collection=passage.collection,
                object_id=passage.object_id,
            )
        evidence.consulted["knowledge_passages"] = len(retrieved.passages)
    _fit(evidence, question)
    return evidence


_WORD = re.compile(r"\w{3,}")


def _fit(evidence: Evidence, question: str) -> None:
    """Drop the passages sharing the fewest words with the question until the rest fit
    BUDGET_CHARS; the kept ones keep their order and are renumbered S1..Sn."""
    total = sum(len(s.text) + len(s.label) for s in evidence.sources)
    if total > BUDGET_CHARS:
        wanted = Counter(w.lower() for w in _WORD.findall(question))

        def relevance(source: Source) -> float:
            words = Counter(w.lower() for w in _WORD.findall(source.text))
            return sum(min(words[w], 3) for w in wanted) / (1 + len(source.text) / 2000)

        ranked = sorted(evidence.sources, key=relevance, reverse=True)
        kept: set[int] = set()
        used = 0
        for source in ranked:
            size = len(source.text) + len(source.label)
            if used + size <= BUDGET_CHARS:
                kept.add(id(source))
                used += size
        evidence.trimmed = len(evidence.sources) - len(kept)
        evidence.sources = [s for s in evidence.sources if id(s) in kept]
    for number, source in enumerate(evidence.sources, start=1):
        source.id = f"S{number}"


def cited(items: list[Cited], evidence: Evidence) -> tuple[list[Cited], int]:
    """The items whose `citations` name passages that exist (unknown IDs removed), and how
    many items were dropped for citing nothing that exists."""
    known = evidence.by_id
    kept: list[Cited] = []
    for item in items:
        ids = [i.strip().strip("[]") for i in item.get("citations") or []]
        valid = list(dict.fromkeys(i for i in ids if i in known))
        if valid:
            kept.append({**item, "citations": valid})
    return kept, len(items) - len(kept)


_MARKER = re.compile(r"\[(S\d+)\]")


def strip_unknown_markers(text: str, evidence: Evidence) -> str:
    """Remove [Sn] markers that name no passage from free text (the executive summary)."""
    known = evidence.by_id
    return _MARKER.sub(lambda m: m.group(0) if m.group(1) in known else "", text)


def used_sources(report: Mapping[str, Any], evidence: Evidence) -> list[dict[str, Any]]:
    """The sources the report cites, in order of first citation."""
    order: list[str] = []
    for item in [*report.get("findings", []), *report.get("key_insights", [])]:
        order += item.get("citations", [])
    order += _MARKER.findall(report.get("executive_summary", ""))
    known = evidence.by_id
    return [known[i].public() for i in dict.fromkeys(order) if i in known]
