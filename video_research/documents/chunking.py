"""Heading-aware chunking by tokens: blocks in, chunks that fit the embedding model out.

A chunk never crosses a heading: every chunk belongs to exactly one section and carries
its heading path ("Methods > Setup"). Within a section, consecutive blocks of the same
type (text, list, table, code) are packed together up to the token budget; a change of
type starts a new chunk, so a `chunk_type` filter returns what it says. A block larger
than the budget is split where its structure allows: text between sentences, lists
between items, tables between rows (the header row repeated in every piece), code
between lines, and anything still too long at token boundaries.

Tokens are the embedding model's own word pieces (`knowledge.embeddings.count_tokens`),
so a chunk of `budget` tokens plus its heading path is embedded whole, never truncated.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from video_research.documents.extract import Block, BlockKind
from video_research.knowledge.embedders.embeddings import count_tokens, local_tokenizer

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


def chunk_blocks(blocks: list[Block], budget: int, *, page_breaks: bool = False) -> list[Chunk]:
    """The chunks of a document's blocks, in reading order.

    `budget` is the most tokens the chunk text and its heading path may hold together;
    `page_breaks` starts a new section at every page (slides: a slide's content never
    runs under the previous slide's title).
    """
    chunks: list[Chunk] = []
    path: list[tuple[int, str]] = []
    open_blocks: list[Block] = []
    last_page: int | None = None

    def flush() -> None:
        if open_blocks:
            chunks.extend(_pack(open_blocks, [title for _, title in path], budget))
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


def _pack(blocks: list[Block], heading_path: list[str], budget: int) -> Iterator[Chunk]:
    """Blocks of one type in one section, as chunks of at most `budget` tokens each."""
    room = max(
        MIN_BUDGET, budget - (count_tokens(heading_text(heading_path)) if heading_path else 0)
    )
    kind = blocks[0].kind
    joiner = "\n" if kind in ("list", "code") else "\n\n"
    pieces: list[tuple[str, int | None]] = []
    for block in blocks:
        for piece in _split(block.text, kind, room):
            pieces.append((piece, block.page))
    current: list[str] = []
    pages: list[int | None] = []
    used = 0
    for text, page in pieces:
        tokens = count_tokens(text)
        if current and used + tokens > room:
            yield _chunk(current, joiner, kind, heading_path, pages)
            current, pages, used = [], [], 0
        current.append(text)
        pages.append(page)
        used += tokens
    if current:
        yield _chunk(current, joiner, kind, heading_path, pages)


def _chunk(
    parts: list[str],
    joiner: str,
    kind: BlockKind,
    heading_path: list[str],
    pages: list[int | None],
) -> Chunk:
    text = joiner.join(parts)
    known = [p for p in pages if p is not None]
    return Chunk(
        text=text,
        chunk_type=kind,
        heading_path=list(heading_path),
        page=min(known) if known else None,
        page_end=max(known) if known else None,
        token_count=count_tokens(text),
    )


def _split(text: str, kind: BlockKind, room: int) -> list[str]:
    """`text` in pieces of at most `room` tokens, cut where its structure allows."""
    if count_tokens(text) <= room:
        return [text]
    if kind == "table":
        return _split_table(text, room)
    if kind == "list":
        units = re.split(r"\n(?=\s*(?:[-*+•]|\d{1,3}[.)])\s)", text)
        joiner = "\n"
    elif kind == "code":
        units, joiner = text.split("\n"), "\n"
    else:
        units, joiner = _SENTENCE_END.split(text), " "
    return _greedy(units, joiner, room, count_tokens)


def _split_table(text: str, room: int) -> list[str]:
    """A table between rows, its header repeated in every piece; a table that is all header
    (or whose header leaves too little room) between rows and words, header not repeated."""
    rows = text.split("\n")
    header = rows[:2] if len(rows) > 1 and _is_rule(rows[1]) else rows[:1]
    head = "\n".join(header)
    body = rows[len(header) :]
    if not any(row.strip() for row in body) or count_tokens(head) > room - MIN_BUDGET:
        return _greedy([row for row in rows if not _is_rule(row)], "\n", room, count_tokens)
    body_room = room - count_tokens(head)
    return [f"{head}\n{part}" for part in _greedy(body, "\n", body_room, count_tokens)]


def _is_rule(row: str) -> bool:
    """The |---|:--:| row under a table's header."""
    return "-" in row and set(row.replace("|", "").strip()) <= set("-: ")


def _greedy(units: list[str], joiner: str, room: int, measure: Callable[[str], int]) -> list[str]:
    """Units joined greedily into pieces of at most `room` tokens; an oversized unit is cut
    at token boundaries."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for unit in units:
        if not unit.strip():
            continue
        tokens = measure(unit)
        if tokens > room:
            if current:
                pieces.append(joiner.join(current))
                current, used = [], 0
            pieces.extend(_windows(unit, room))
            continue
        if current and used + tokens > room:
            pieces.append(joiner.join(current))
            current, used = [], 0
        current.append(unit)
        used += tokens
    if current:
        pieces.append(joiner.join(current))
    return pieces


def _windows(text: str, room: int) -> list[str]:
    """`text` cut into spans of at most `room` word pieces, at word starts where possible."""
    encoding = local_tokenizer().encode(text, add_special_tokens=False)
    offsets, words = encoding.offsets, encoding.word_ids
    spans = []
    start = 0
    while start < len(offsets):
        end = min(start + room, len(offsets))
        if end < len(offsets):
            cut = end
            while cut > start + 1 and words[cut] is not None and words[cut] == words[cut - 1]:
                cut -= 1
            end = cut
        stop = offsets[end][0] if end < len(offsets) else len(text)
        spans.append(text[offsets[start][0] : stop].strip())
        start = end
    return [span for span in spans if span]
