"""tool_search's index: every tool of the table, searched by what a caller needs done.

A BM25 index (Tantivy, already the knowledge store's keyword index) over each tool's
name, title, description and its toolset's line, stemmed in English, so "ingest a PDF"
finds document_ingest and "frames of my video" media_frames. Built in memory on the
first search (~80 short documents, a few milliseconds) and kept for the process.

Free text is parsed leniently: quotes, brackets and operators a user types are read as
words, never as a syntax error.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from video_research.tools.table import TOOLS

_FIELDS = ("name", "title", "body")
_BOOSTS = {"name": 3.0, "title": 2.0, "body": 1.0}


Toolsets = tuple[tuple[str, str], ...]
"""(toolset, its one line) pairs: what the index adds to each tool's own words."""


@cache
def _index(toolsets: Toolsets) -> Any:
    import tantivy

    lines = dict(toolsets)
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("tool", stored=True, tokenizer_name="raw")
    for field in _FIELDS:
        builder.add_text_field(field, tokenizer_name="en_stem")
    index = tantivy.Index(builder.build())
    writer = index.writer(15_000_000, 1)
    for spec in TOOLS.values():
        writer.add_document(
            tantivy.Document(
                tool=spec.name,
                name=spec.name.replace("_", " "),
                title=spec.title,
                body=f"{spec.description}\n{spec.toolset}: {lines.get(spec.toolset, '')}",
            )
        )
    writer.commit()
    index.reload()
    return index


def search(query: str, among: tuple[str, ...], limit: int, toolsets: Toolsets = ()) -> list[str]:
    """The names of the tools in `among` that fit `query` best, best first (at most
    `limit`); a query naming a tool exactly puts that tool first. `toolsets` gives each
    toolset's line, searched with its tools."""
    wanted = set(among)
    words = " ".join(re.findall(r"\w+", query.replace("_", " ")))
    exact = [name for name in re.findall(r"\w+", query) if name in wanted]
    found: list[str] = list(dict.fromkeys(exact))
    if words:
        index = _index(toolsets)
        parsed, _errors = index.parse_query_lenient(words, list(_FIELDS), field_boosts=_BOOSTS)
        searcher = index.searcher()
        for _score, address in searcher.search(parsed, len(TOOLS)).hits:
            name = searcher.doc(address)["tool"][0]
            if name in wanted and name not in found:
                found.append(name)
    return found[:limit]
