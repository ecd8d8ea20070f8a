"""content_analyze and content_extract: documents, web pages and text through Gemini."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from video_research.clients.gemini import client as gemini
from video_research.clients.gemini import templates as prompts
from video_research.knowledge import writethrough
from video_research.support import contracts, paths, url_policy
from video_research.support.errors import ErrorCategory, ToolFailure, invalid_input
from video_research.tools.context import CallContext

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


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_file(path: Path, file_path: str) -> tuple[Any, str, str]:
    """(Gemini part, resolved path, content key) for a PDF or text file (already
    confined); the key is the bytes' SHA-256, so a renamed file is the same content."""
    if not path.exists():
        raise ToolFailure(ErrorCategory.FILE_NOT_FOUND, f"No such file: {file_path}")
    size = paths.check_regular(path).st_size  # a FIFO or device is refused, never opened
    if size > MAX_FILE_BYTES:
        raise ToolFailure(
            ErrorCategory.FILE_TOO_LARGE,
            f"{path.name} is {size / 1e6:.1f} MB; content_analyze takes files up to 20 MB.",
            hint="Split the document, or ingest it with document_ingest and search it instead.",
        )
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        data = paths.read_regular(path, MAX_FILE_BYTES)
        return (
            gemini.bytes_part(data, "application/pdf"),
            paths.printable(path),
            "file:" + _digest(data),
        )
    if suffix in TEXT_SUFFIXES:
        data = paths.read_regular(path, MAX_FILE_BYTES)
        text = data.decode("utf-8", errors="replace")
        return gemini.text_part(text), paths.printable(path), "file:" + _digest(data)
    raise ToolFailure(
        ErrorCategory.FILE_UNSUPPORTED,
        f"Unsupported file type {suffix or '(none)'!r} for {path.name}.",
        hint=f"content_analyze reads PDF and text files ({', '.join(sorted(TEXT_SUFFIXES))}).",
    )


def _retrieved(generation: gemini.Generation) -> list[dict[str, Any]]:
    return list(generation.url_context.get("url_metadata", []) or [])


async def _analyze_url(
    url: str, instruction: str, schema: dict[str, Any], custom: bool, thinking: str
) -> tuple[dict[str, Any], gemini.Generation]:
    """UrlContext in one structured call; if the model rejects tools with a schema,
    fetch unstructured first and reshape the text second (the two-step fallback)."""
    template = "content_custom" if custom else "content_analysis"
    prompt = f"URL: {url}\n\n" + prompts.render(template, instruction=instruction)
    try:
        return await gemini.generate_json(
            prompt, schema=schema, tools=("url_context",), thinking_level=thinking
        )
    except ToolFailure as failure:
        if failure.category not in (ErrorCategory.API_INVALID_ARGUMENT, ErrorCategory.UNKNOWN):
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


async def content_analyze(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    given = [name for name in ("file_path", "url", "text") if args.get(name)]
    if len(given) != 1:
        raise invalid_input(
            "Pass exactly one of file_path, url or text"
            + (f" (got {', '.join(given)})." if given else "."),
        )
    output_schema = args.get("output_schema")
    if output_schema is not None:
        contracts.check_caller_schema(output_schema, "output_schema")
    gemini.require_api_key()
    if given[0] == "url":
        args = {**args, "url": await url_policy.check_url(args["url"])}
    custom = output_schema is not None
    schema = output_schema if custom else contracts.gemini_response_schema(CONTENT_RESULT_SCHEMA)
    instruction, thinking = args["instruction"], args["thinking_level"]
    kind = given[0]
    if kind == "url":
        source = args["url"]
        content_key = "url:" + source
        data, generation = await _analyze_url(source, instruction, schema, custom, thinking)
    else:
        if kind == "file_path":
            confined = await paths.confine(args["file_path"], ctx)
            part, source, content_key = await asyncio.to_thread(
                _read_file, confined, args["file_path"]
            )
        else:
            part, source = gemini.text_part(args["text"]), "text"
            content_key = "text:" + _digest(args["text"].encode("utf-8", "surrogatepass"))
        template = "content_custom" if custom else "content_analysis"
        data, generation = await gemini.generate_json(
            [
                gemini.user_content(
                    part, gemini.text_part(prompts.render(template, instruction=instruction))
                )
            ],
            schema=schema,
            thinking_level=thinking,
        )
    if custom:
        return data
    result = {
        **data,
        "source": source,
        "source_type": {"file_path": "file", "url": "url", "text": "text"}[kind],
    }
    if kind == "url":
        result["retrieved_urls"] = _retrieved(generation)
    await writethrough.store_content_analysis(
        result, source, instruction, content_key=content_key, model=generation.model
    )
    return result


async def content_extract(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
    schema = contracts.check_caller_schema(args["schema"], "schema")
    gemini.require_api_key()
    description = schema.get("description") or json.dumps(schema, indent=1)[:4000]
    data, _ = await gemini.generate_json(
        prompts.render(
            "structured_extract", content=args["content"], schema_description=description
        ),
        schema=schema,
        thinking_level="low",
    )
    return data
