"""Heading-aware chunking by tokens: blocks in, chunks that fit the embedding model out.

A chunk never crosses a heading: every chunk belongs to exactly one section and carries
its heading path ("Methods > Setup"). Within a section, consecutive blocks of the same
type (text, list, table, code) are packed together up to the token budget; a change of
type starts a new chunk, so a `chunk_type` filter returns what it says. A block larger
than the budget is split where its structure allows: text between sentences, lists
between items, tables between rows (the header row repeated in every piece), code
between lines, and anything still too long at token boundaries.

Tokens are those of the model that embeds the chunks (the embedder's `token_counter()`,
`knowledge.embedders.tokens`), so a chunk of `budget` tokens plus its heading path is
embedded whole, never truncated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from video_research.documents.blocks import Block, BlockKind
from video_research.knowledge.embedders.embeddings import default_token_counter
from video_research.knowledge.embedders.tokens import TokenCounter

MIN_BUDGET = 32
"""The fewest tokens a chunk may hold, however long its heading path."""

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


@dataclass
class Chunk:
    text: str
    chunk_type: BlockKind
    heading_path: list[str]
    page: int | None
    page_end: int | None
    token_count: int


def heading_text(path: list[str]) -> str:
    return " > ".join(path)


def chunk_blocks(
    blocks: list[Block],
    budget: int,
    *,
    page_breaks: bool = False,
    tokens: TokenCounter | None = None,
) -> list[Chunk]:
    """The chunks of a document's blocks, in reading order.

    `budget` is the most tokens the chunk text and its heading path may hold together;
    `page_breaks` starts a new section at every page (slides: a slide's content never
    runs under the previous slide's title); `tokens` counts them (the embedder's counter;
    the default model's when not given).
    """
    counter = tokens or default_token_counter()
    chunks: list[Chunk] = []
    path: list[tuple[int, str]] = []
    open_blocks: list[Block] = []
    last_page: int | None = None

    def flush() -> None:
        if open_blocks:
            chunks.extend(_pack(open_blocks, [title for _, title in path], budget, counter))
            open_blocks.clear()

    for block in blocks:
        if page_breaks and block.page != last_page:
            flush()
            path.clear()
        last_page = block.page
        if block.kind == "heading":
            flush()
            while path and path[-1][0] >= block.level:
                path.pop()
            path.append((block.level, block.text))
            continue
        if open_blocks and open_blocks[-1].kind != block.kind:
            flush()
        open_blocks.append(block)
    flush()
    return chunks


def _pack(
    blocks: list[Block], heading_path: list[str], budget: int, counter: TokenCounter
) -> Iterator[Chunk]:
    """Blocks of one type in one section, as chunks of at most `budget` tokens each."""
    room = max(
        MIN_BUDGET, budget - (counter.count(heading_text(heading_path)) if heading_path else 0)
    )
    kind = blocks[0].kind
    joiner = "\n" if kind in ("list", "code") else "\n\n"
    pieces: list[tuple[str, int | None]] = []
    for block in blocks:
        for piece in _split(block.text, kind, room, counter):
            pieces.append((piece, block.page))
    current: list[str] = []
    pages: list[int | None] = []
    used = 0
    for text, page in pieces:
        tokens = counter.count(text)
        if current and used + tokens > room:
            yield _chunk(current, joiner, kind, heading_path, pages, counter)
            current, pages, used = [], [], 0
        current.append(text)
        pages.append(page)
        used += tokens
    if current:
        yield _chunk(current, joiner, kind, heading_path, pages, counter)


def _chunk(
    parts: list[str],
    joiner: str,
    kind: BlockKind,
    heading_path: list[str],
    pages: list[int | None],
    counter: TokenCounter,
) -> Chunk:
    text = joiner.join(parts)
    known = [p for p in pages if p is not None]
    return Chunk(
        text=text,
        chunk_type=kind,
        heading_path=list(heading_path),
        page=min(known) if known else None,
        page_end=max(known) if known else None,
        token_count=counter.count(text),
    )


def _split(text: str, kind: BlockKind, room: int, counter: TokenCounter) -> list[str]:
    """`text` in pieces of at most `room` tokens, cut where its structure allows."""
    if counter.count(text) <= room:
        return [text]
    if kind == "table":
        return _split_table(text, room, counter)
    if kind == "list":
        units = re.split(r"\n(?=\s*(?:[-*+•]|\d{1,3}[.)])\s)", text)
        joiner = "\n"
    elif kind == "code":
        units, joiner = text.split("\n"), "\n"
    else:
        units, joiner = _SENTENCE_END.split(text), " "
    return _greedy(units, joiner, room, counter)


def _split_table(text: str, room: int, counter: TokenCounter) -> list[str]:
    """A table between rows, its header repeated in every piece; a table that is all header
    (or whose header leaves too little room) between rows and words, header not repeated."""
    rows = text.split("\n")
    header = rows[:2] if len(rows) > 1 and _is_rule(rows[1]) else rows[:1]
    head = "\n".join(header)
    body = rows[len(header) :]
    if not any(row.strip() for row in body) or counter.count(head) > room - MIN_BUDGET:
        return _greedy([row for row in rows if not _is_rule(row)], "\n", room, counter)
    body_room = room - counter.count(head)
    return [f"{head}\n{part}" for part in _greedy(body, "\n", body_room, counter)]


def _is_rule(row: str) -> bool:
    """The |---|:--:| row under a table's header."""
    return "-" in row and set(row.replace("|", "").strip()) <= set("-: ")


def _greedy(units: list[str], joiner: str, room: int, counter: TokenCounter) -> list[str]:
    """Units joined greedily into pieces of at most `room` tokens; an oversized unit is cut
    at token boundaries."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for unit in units:
        if not unit.strip():
            continue
        tokens = counter.count(unit)
        if tokens > room:
            if current:
                pieces.append(joiner.join(current))
                current, used = [], 0
            pieces.extend(_windows(unit, room, counter))
            continue
        if current and used + tokens > room:
            pieces.append(joiner.join(current))
            current, used = [], 0
        current.append(unit)
        used += tokens
    if current:
        pieces.append(joiner.join(current))
    return pieces


def _windows(text: str, room: int, counter: TokenCounter) -> list[str]:
    """`text` cut into spans of at most `room` tokens, at word starts where possible."""
    pieces = counter.pieces(text)
    starts, words = pieces.starts, pieces.words
    spans = []
    start = 0
    while start < len(starts):
        end = min(start + room, len(starts))
        if end < len(starts):
            cut = end
            while cut > start + 1 and words[cut] == words[cut - 1]:
                cut -= 1
            end = cut
        stop = starts[end] if end < len(starts) else len(text)
        spans.append(text[starts[start] : stop].strip())
        start = end
    return [span for span in spans if span]
