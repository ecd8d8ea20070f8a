"""From a file's bytes to `Block`s: headings, paragraphs, lists, tables and code, with pages.

Two readers:

- PDF: pdfminer.six's layout analysis, one page at a time (`pdf_reader`).
- Everything else, here: markitdown's converter for the type (DOCX, PPTX, HTML, Markdown,
  plain text) gives Markdown, which `parse_markdown` splits into blocks. PPTX slides are
  pages.

What both produce, and the title rule they share, are in `blocks`.

Both run offline: no converter is given an LLM client, none fetches anything, and the
converter is picked from the document type rather than guessed by content.

Failures a user can act on (encrypted or corrupt files, binary data named as text, a
DOCX/PPTX that would unpack past DOCUMENTS_MAX_UNPACKED_MB or pack suspiciously well: a
zip bomb, refused from the archive's directory before any part is read) raise
`ToolFailure`s that say which, so a batch reports them per file; a file without text
(empty, scanned) is refused by the ingest once chunked (`no_text`).
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from typing import Any

from video_research.documents.blocks import (
    EXTENSIONS,
    JUNK_TITLE,
    Block,
    BlockKind,
    DocumentType,
    Extracted,
    document_type_for,
    title_for,
    unreadable,
)
from video_research.documents.guards import ArchiveLimits, check_archive, check_text
from video_research.documents.pdf_reader import extract_pdf
from video_research.support.errors import ToolFailure, invalid_input

logger = logging.getLogger(__name__)

__all__ = [
    "EXTENSIONS",
    "Block",
    "BlockKind",
    "DocumentType",
    "Extracted",
    "docx_title",
    "document_type_for",
    "extract",
    "no_text",
    "parse_markdown",
]


def extract(
    data: bytes,
    document_type: DocumentType,
    name: str,
    *,
    limits: ArchiveLimits | None = None,
) -> Extracted:
    """The blocks of a file; `name` (the file name) is the fallback title and appears in errors.
    A file without text gives no text blocks; the caller refuses it (`no_text`) once chunked.
    `limits` bound how far a DOCX/PPTX may unpack (default: from the configuration)."""
    if document_type is DocumentType.PDF:
        extracted = extract_pdf(data, name)
    else:
        extracted = _extract_markdown(data, document_type, name, limits)
    return extracted


def no_text(name: str, document_type: DocumentType) -> ToolFailure:
    """The failure for a file with nothing to index (no passage once chunked)."""
    hint = (
        "A scanned PDF has no text layer: run OCR on it first (e.g. ocrmypdf), then ingest the result."
        if document_type is DocumentType.PDF
        else "The file holds no text to index (only headings, or nothing at all)."
    )
    return invalid_input(f"{name} has no extractable text.", hint=hint)


# ------------------------------------------------------------------ Markdown-based formats
_SLIDE = re.compile(r"^<!--\s*Slide number:\s*(\d+)\s*-->$")
_COMMENT = re.compile(r"^<!--.*-->$")
_ATX = re.compile(r"^(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_SETEXT = re.compile(r"^(=+|-+)\s*$")
_THEMATIC_BREAK = re.compile(r"^([-*_])(?:\s*\1){2,}\s*$")
_FRONT_MATTER = {"---": ("---", "..."), "+++": ("+++",)}
"""Opening line of a Markdown file's front matter (YAML, TOML) -> the lines that close it."""
_FRONT_MATTER_FIELD = re.compile(r"^[A-Za-z_][\w-]*\s*[:=]")
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_TABLE_ROW = re.compile(r"^\s*\|")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")


def _markitdown(data: bytes, document_type: DocumentType) -> tuple[str, str | None]:
    """(Markdown, title) from markitdown's converter for the type."""
    from markitdown import StreamInfo
    from markitdown.converters import (
        DocxConverter,
        HtmlConverter,
        PlainTextConverter,
        PptxConverter,
    )

    converters = {
        DocumentType.DOCX: (DocxConverter, ".docx"),
        DocumentType.PPTX: (PptxConverter, ".pptx"),
        DocumentType.HTML: (HtmlConverter, ".html"),
        DocumentType.MARKDOWN: (PlainTextConverter, ".md"),
        DocumentType.TEXT: (PlainTextConverter, ".txt"),
    }
    converter, extension = converters[document_type]
    if document_type is DocumentType.HTML:
        data = _without_page_chrome(data)
    result = converter().convert(io.BytesIO(data), StreamInfo(extension=extension))
    return result.markdown, result.title


_PAGE_CHROME = ("nav", "footer", "aside", "noscript")
"""HTML elements around a page's content (menus, footers, sidebars), left out of the text."""
_CONTENT = ("main", "article", "section", "h1", "h2", "h3", "h4", "h5", "h6", "p", "table")
"""What makes a <form> content rather than chrome: ASP.NET WebForms pages wrap the whole
body in one form, while a search box or sign-up form holds only controls and labels."""


def _without_page_chrome(data: bytes) -> bytes:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(data, "html.parser")
    for element in soup.find_all(_PAGE_CHROME):
        element.decompose()
    for form in soup.find_all("form"):
        if form.find(_CONTENT) is None:
            form.decompose()
    return soup.encode()


def _check_office_container(data: bytes, document_type: DocumentType, name: str) -> None:
    """DOCX and PPTX are ZIP files; a password-protected one is an OLE container instead."""
    if data.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        raise invalid_input(
            f"{name} is password-protected (an encrypted Office file) or an old binary "
            f"{'.doc' if document_type is DocumentType.DOCX else '.ppt'} file.",
            hint="Remove the password (or save it as .docx / .pptx) and ingest it again.",
        )
    if not data.startswith(b"PK"):
        raise invalid_input(
            f"{name} is not a valid {document_type.value.upper()} file (corrupt or mislabelled).",
            hint="Open and re-save it, or pass the right document_type.",
        )


_TEXT_LABELS = {DocumentType.HTML: "HTML", DocumentType.MARKDOWN: "Markdown text"}


def _extract_markdown(
    data: bytes, document_type: DocumentType, name: str, limits: ArchiveLimits | None = None
) -> Extracted:
    if document_type in (DocumentType.DOCX, DocumentType.PPTX):
        _check_office_container(data, document_type, name)
        check_archive(data, name, limits or ArchiveLimits.from_settings())
    else:
        check_text(data, name, _TEXT_LABELS.get(document_type, "plain text"))
    try:
        markdown, title = _markitdown(data, document_type)
    except ToolFailure:
        raise
    except Exception as exc:
        raise unreadable(name, document_type, exc) from exc
    if document_type is DocumentType.TEXT:
        blocks = list(_plain_blocks(markdown))
    else:
        blocks = list(parse_markdown(markdown, front_matter=document_type is DocumentType.MARKDOWN))
    pages = {block.page for block in blocks if block.page is not None}
    if document_type is DocumentType.DOCX:
        title = docx_title(data) or title
    return Extracted(
        title=title_for(title, blocks, name),
        blocks=blocks,
        page_count=max(pages) if pages else None,
        pages_with_breaks=document_type is DocumentType.PPTX,
    )


def _plain_blocks(text: str) -> Iterator[Block]:
    for paragraph in re.split(r"\n\s*\n", text):
        if paragraph.strip():
            yield Block("text", " ".join(paragraph.split()))


def parse_markdown(markdown: str, *, front_matter: bool = False) -> Iterator[Block]:
    """Blocks of a Markdown text: ATX and setext headings, fenced code, pipe tables, lists,
    paragraphs. `<!-- Slide number: N -->` comments (markitdown's PPTX output) set the page.
    Thematic breaks (---, ***) are left out, and so is leading front matter (a Markdown
    file's YAML or TOML header) when `front_matter` is set."""
    page: int | None = None
    lines = markdown.splitlines()
    buffer: list[str] = []
    kind: BlockKind = "text"

    def flush() -> Iterator[Block]:
        nonlocal buffer
        if buffer:
            text = "\n".join(buffer) if kind in ("code", "table", "list") else " ".join(buffer)
            if text.strip():
                yield Block(kind, text.strip("\n") if kind == "code" else text.strip(), page)
        buffer = []

    index = _front_matter_end(lines) if front_matter else 0
    while index < len(lines):
        line = lines[index].rstrip()
        stripped = line.strip()
        index += 1
        fence = _FENCE.match(line)
        if fence:
            yield from flush()
            kind = "code"
            marker = fence.group(1)
            while index < len(lines) and not lines[index].strip().startswith(marker):
                buffer.append(lines[index].rstrip())
                index += 1
            index += 1  # the closing fence
            yield from flush()
            kind = "text"
            continue
        slide = _SLIDE.match(stripped)
        if slide or _COMMENT.match(stripped):
            yield from flush()
            if slide:
                page = int(slide.group(1))
            continue
        heading = _ATX.match(stripped)
        if heading and heading.group(2):
            yield from flush()
            yield Block("heading", _inline(heading.group(2)), page, len(heading.group(1)))
            continue
        if not stripped:
            if kind != "list":
                yield from flush()
            continue
        underline = _SETEXT.match(stripped)
        if underline and kind == "text" and len(buffer) == 1:
            level = 1 if underline.group(1)[0] == "=" else 2
            text, buffer = buffer[0], []
            yield Block("heading", _inline(text), page, level)
            continue
        if _THEMATIC_BREAK.match(stripped):
            yield from flush()
            kind = "text"
            continue
        if _TABLE_ROW.match(line):
            if kind != "table":
                yield from flush()
                kind = "table"
            buffer.append(stripped)
            continue
        if _LIST_ITEM.match(line):
            if kind != "list":
                yield from flush()
                kind = "list"
            buffer.append(_inline(line.rstrip()))
            continue
        if kind == "list" and line[:1].isspace():
            buffer.append(_inline(line.rstrip()))
            continue
        if kind != "text":
            yield from flush()
            kind = "text"
        buffer.append(_inline(stripped))
    yield from flush()


def _front_matter_end(lines: list[str]) -> int:
    """The index of the first line after the front matter at the top of `lines`; 0 if none
    (the opening line must be followed by a `key: value` / `key = value` field and closed)."""
    closers = _FRONT_MATTER.get(lines[0].strip()) if lines else None
    if not closers or len(lines) < 3 or not _FRONT_MATTER_FIELD.match(lines[1]):
        return 0
    for index in range(2, len(lines)):
        if lines[index].strip() in closers:
            return index + 1
    return 0


def _inline(text: str) -> str:
    """Markdown images reduced to their alt text (markitdown keeps them as links)."""
    return _IMAGE.sub(lambda m: m.group(1), text)


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"


def docx_title(data: bytes) -> str | None:
    """A DOCX's title as its author set it: the first Title-style paragraph, else the
    core properties' title (File > Properties), else the first Heading 1; None if none.

    markitdown renders a Title-style paragraph as plain text and reports no title, so
    without this the first heading, often "Introduction", named the document. Read with
    defusedxml from the ZIP the archive limits already checked: three small lookups, no
    DTDs or entity expansion, and no further dependency for them.
    """
    import zipfile

    from defusedxml import ElementTree

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            styles = _docx_styles(archive, ElementTree) if "word/styles.xml" in names else {}
            title_ids = {sid for sid, n in styles.items() if n == "title"} | {"Title"}
            heading_ids = {sid for sid, n in styles.items() if n == "heading 1"} | {"Heading1"}
            first_heading = None
            if "word/document.xml" in names:
                with archive.open("word/document.xml") as document:
                    for _, element in ElementTree.iterparse(document):
                        if element.tag != f"{_W}p":
                            continue
                        style = element.find(f"{_W}pPr/{_W}pStyle")
                        style_id = style.get(f"{_W}val") if style is not None else None
                        text = " ".join(
                            "".join(t.text or "" for t in element.iter(f"{_W}t")).split()
                        )
                        if text and style_id in title_ids:
                            return text[:500]
                        if text and style_id in heading_ids and first_heading is None:
                            first_heading = text[:500]
                        element.clear()
            if "docProps/core.xml" in names:
                core = ElementTree.fromstring(archive.read("docProps/core.xml"))
                declared = " ".join((core.findtext(_DC_TITLE) or "").split())
                if declared and not JUNK_TITLE.match(declared):
                    return declared[:500]
            return first_heading
    except Exception as exc:  # a title is a nicety: the extraction already read the file
        logger.debug("no DOCX title read: %s", exc)
        return None


def _docx_styles(archive: Any, tree: Any) -> dict[str, str]:
    """Paragraph style ID -> its name, lower-cased ("Title" may have any ID in a
    translated Word: "Titel", "Titre")."""
    root = tree.fromstring(archive.read("word/styles.xml"))
    styles = {}
    for style in root.iter(f"{_W}style"):
        name = style.find(f"{_W}name")
        style_id = style.get(f"{_W}styleId")
        if style_id and name is not None:
            styles[style_id] = (name.get(f"{_W}val") or "").lower()
    return styles
