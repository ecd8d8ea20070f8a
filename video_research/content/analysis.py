"""One source analysed by Gemini: a file (PDF or text), a web page or a text, and
structured extraction from content.

A file is read whole and sent inline (20 MB at most); a web page is read by Gemini's URL
context. Unless the caller gave its own output schema, every analysis is shaped by
schemas/common/content_result.json and written through to the knowledge base under a
content key (the bytes' SHA-256 for files and texts, the URL for pages), so the same
content analysed twice updates one object.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.knowledge import writethrough
from video_research.support import contracts, paths
from video_research.support.errors import ErrorCategory, ToolFailure

if TYPE_CHECKING:
    from video_research.support.schema_types.tools import (
        ContentAnalyzeOutput,
        ContentExtractOutput,
    )

logger = logging.getLogger(__name__)

CONTENT_RESULT_SCHEMA = "common/content_result.json"
MAX_FILE_BYTES = 20 * 1024 * 1024
TEXT_SUFFIXES = {
    ".txt",
    ".md",
    ".markdown",
    ".rst",
    ".html",
    ".htm",
    ".csv",
    ".tsv",
    ".json",
    ".xml",
    ".yaml",
    ".yml",
    ".log",
    ".srt",
    ".vtt",
}

SourceType = Literal["file", "url", "text"]


def digest(data: bytes) -> str:
    """The SHA-256 of content: its key in the knowledge base, so a renamed file or a
    repeated text is recognised as the same content."""
    return hashlib.sha256(data).hexdigest()


def result_schema(output_schema: dict[str, Any] | None) -> dict[str, Any]:
    """What Gemini must answer: the caller's schema, or the content result's."""
    if output_schema is not None:
        return output_schema
    return contracts.gemini_response_schema(CONTENT_RESULT_SCHEMA)


def read_file(path: Path, file_path: str) -> tuple[Any, str, str]:
    """(Gemini part, resolved path, content key) for a PDF or text file (already
    confined); the key is the bytes' SHA-256, so a renamed file is the same content.

    Public because content_batch_analyze reads each of its files exactly this way (the
    same types, limits and errors as content_analyze). Blocking: run it in a thread.
    """
    if not path.exists():
        raise ToolFailure(
            ErrorCategory.NOT_FOUND, f"No such file: {paths.explain(file_path, path)}"
        )
    size = paths.check_regular(path).st_size  # a FIFO or device is refused, never opened
    if size > MAX_FILE_BYTES:
        raise ToolFailure(
            ErrorCategory.TOO_LARGE,
            f"{path.name} is {size / 1e6:.1f} MB; content_analyze takes files up to 20 MB.",
            hint="Split the document, or ingest it with document_ingest and search it instead.",
        )
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        data = paths.read_regular(path, MAX_FILE_BYTES)
        return (
            gemini.bytes_part(data, "application/pdf"),
            paths.printable(path),
            "file:" + digest(data),
        )
    if suffix in TEXT_SUFFIXES:
        data = paths.read_regular(path, MAX_FILE_BYTES)
        text = data.decode("utf-8", errors="replace")
        return gemini.text_part(text), paths.printable(path), "file:" + digest(data)
    raise ToolFailure(
        ErrorCategory.UNSUPPORTED_FORMAT,
        f"Unsupported file type {suffix or '(none)'!r} for {path.name}.",
        hint=f"content_analyze reads PDF and text files ({', '.join(sorted(TEXT_SUFFIXES))}).",
    )


def _checked(result: dict[str, Any]) -> ContentAnalyzeOutput:
    """An analysis as content_analyze returns it: Gemini's answer passed `result_schema`
    in gemini.generate_json (the content result's, or the caller's own, an object the
    contract leaves open), and `source` and `source_type` are ours."""
    return cast("ContentAnalyzeOutput", result)


def file_request(part: Any, instruction: str, custom: bool) -> list[Any]:
    """The Gemini contents for analysing one file or text (its part, then the instruction).

    Public because content_batch_analyze sends each file as this same request, directly
    or in a Batch API job.
    """
    template = "content_custom" if custom else "content_analysis"
    return [
        gemini.user_content(
            part, gemini.text_part(prompts.render(template, instruction=instruction))
        )
    ]


async def ask_about_url(
    url: str, instruction: str, schema: dict[str, Any], custom: bool, thinking: str
) -> tuple[dict[str, Any], gemini.Generation]:
    """UrlContext in one structured call; if the model rejects tools with a schema,
    fetch unstructured first and reshape the text second (the two-step fallback).

    Public because research_document reads its URLs through this same fetch (with its own
    instruction and schema), so a page reads the same wherever it is analysed. The URL
    must have passed the URL policy already.
    """
    template = "content_custom" if custom else "content_analysis"
    prompt = f"URL: {url}\n\n" + prompts.render(template, instruction=instruction)
    try:
        return await gemini.generate_json(
            prompt, schema=schema, tools=("url_context",), thinking_level=thinking
        )
    except ToolFailure as failure:
        if failure.category not in (ErrorCategory.INVALID_INPUT, ErrorCategory.INTERNAL_ERROR):
            raise
        logger.info(
            "content_analyze: structured UrlContext call failed (%s); two-step fallback",
            failure.message,
        )
    fetched = await gemini.generate(
        prompts.render("content_url_fetch", url=url, instruction=instruction),
        tools=("url_context",),
        thinking_level=thinking,
    )
    data, reshaped = await gemini.generate_json(
        prompts.render("content_reshape", url=url, analysis=fetched.text),
        schema=schema,
        thinking_level="low",
    )
    reshaped.url_context = fetched.url_context
    return data, reshaped


async def analyze_url(
    url: str, instruction: str, output_schema: dict[str, Any] | None, thinking: str
) -> ContentAnalyzeOutput:
    """A web page analysed (the URL already checked against the URL policy)."""
    data, generation = await ask_about_url(
        url, instruction, result_schema(output_schema), output_schema is not None, thinking
    )
    if output_schema is not None:
        return _checked(data)
    result = {**data, "source": url, "source_type": "url"}
    result["retrieved_urls"] = list(generation.url_context.get("url_metadata", []) or [])
    await _store(result, url, instruction, "url:" + url, generation)
    return _checked(result)


async def analyze_file(
    path: Path,
    file_path: str,
    instruction: str,
    output_schema: dict[str, Any] | None,
    thinking: str,
) -> ContentAnalyzeOutput:
    """A PDF or text file analysed; `path` is `file_path` already confined to the roots."""
    part, source, content_key = await asyncio.to_thread(read_file, path, file_path)
    return await _analyze_part(
        part, source, "file", content_key, instruction, output_schema, thinking
    )


async def analyze_text(
    text: str, instruction: str, output_schema: dict[str, Any] | None, thinking: str
) -> ContentAnalyzeOutput:
    """A text given inline analysed."""
    content_key = "text:" + digest(text.encode("utf-8", "surrogatepass"))
    return await _analyze_part(
        gemini.text_part(text), "text", "text", content_key, instruction, output_schema, thinking
    )


async def _analyze_part(
    part: Any,
    source: str,
    source_type: SourceType,
    content_key: str,
    instruction: str,
    output_schema: dict[str, Any] | None,
    thinking: str,
) -> ContentAnalyzeOutput:
    custom = output_schema is not None
    data, generation = await gemini.generate_json(
        file_request(part, instruction, custom),
        schema=result_schema(output_schema),
        thinking_level=thinking,
    )
    if custom:
        return _checked(data)
    result = {**data, "source": source, "source_type": source_type}
    await _store(result, source, instruction, content_key, generation)
    return _checked(result)


async def _store(
    result: dict[str, Any],
    source: str,
    instruction: str,
    content_key: str,
    generation: gemini.Generation,
) -> None:
    await writethrough.store_content_analysis(
        result, source, instruction, content_key=content_key, model=generation.model
    )


async def extract(content: str, schema: dict[str, Any]) -> ContentExtractOutput:
    """Data of the caller's (already checked) JSON Schema extracted from `content`."""
    description = schema.get("description") or json.dumps(schema, indent=1)[:4000]
    data, _ = await gemini.generate_json(
        prompts.render("structured_extract", content=content, schema_description=description),
        schema=schema,
        thinking_level="low",
    )
    # it passed the caller's schema in gemini.generate_json: an object the contract leaves open
    return cast("ContentExtractOutput", data)
