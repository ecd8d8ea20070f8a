"""What every document reader produces: the document types, `Block`s and `Extracted`.

A reader (`extract` for the Markdown-based formats, `pdf_reader` for PDF) turns a file's
bytes into blocks (headings, paragraphs, lists, tables and code, each with its page),
which `chunking` cuts into passages. The title rule and the failure for a file a reader
cannot parse are shared here so every reader names and refuses files alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal

from video_research.support.errors import ToolFailure, invalid_input

BlockKind = Literal["heading", "text", "list", "table", "code"]


class DocumentType(StrEnum):
    PDF = "pdf"
    DOCX = "docx"
    PPTX = "pptx"
    HTML = "html"
    MARKDOWN = "markdown"
    TEXT = "text"


EXTENSIONS: dict[str, DocumentType] = {
    ".pdf": DocumentType.PDF,
    ".docx": DocumentType.DOCX,
    ".pptx": DocumentType.PPTX,
    ".html": DocumentType.HTML,
    ".htm": DocumentType.HTML,
    ".xhtml": DocumentType.HTML,
    ".md": DocumentType.MARKDOWN,
    ".markdown": DocumentType.MARKDOWN,
    ".mdx": DocumentType.MARKDOWN,
    ".txt": DocumentType.TEXT,
    ".text": DocumentType.TEXT,
    ".rst": DocumentType.TEXT,
}
"""Which reader a file gets by its extension (document_ingest's document_type overrides it)."""


def document_type_for(path: Path) -> DocumentType | None:
    return EXTENSIONS.get(path.suffix.lower())


@dataclass
class Block:
    kind: BlockKind
    text: str
    page: int | None = None
    level: int = 0
    """Heading level, 1 = top; 0 for other blocks."""


@dataclass
class Extracted:
    title: str
    blocks: list[Block]
    page_count: int | None = None
    """Pages (PDF) or slides (PPTX); None where the format has no fixed pages."""
    pages_with_breaks: bool = field(default=False)
    """Whether a new page starts a new section (slides) rather than continuing the text."""


JUNK_TITLE = re.compile(
    r"^(\(?(untitled|anonymous)\)?|microsoft (word|powerpoint) - .*|\s*)$", re.I
)
"""A declared title that names nothing: a converter's placeholder or an empty one."""


def title_for(declared: str | None, blocks: list[Block], name: str) -> str:
    """The document's title: the one it declares unless that is junk ("Untitled",
    "Microsoft Word - ..."), else its first heading, else the file name's stem."""
    if declared and declared.strip() and not JUNK_TITLE.match(declared.strip()):
        return declared.strip()
    for block in blocks:
        if block.kind == "heading":
            return block.text
    return Path(name).stem


def unreadable(name: str, document_type: DocumentType, exc: Exception) -> ToolFailure:
    """The failure for a file its reader could not parse, with the reader's first line."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return invalid_input(
        f"{name} could not be read as {document_type.value.upper()}: {detail[:300]}",
        hint="The file looks corrupt or is not really of this type. Open and re-save it, or pass "
        "the right document_type.",
    )
