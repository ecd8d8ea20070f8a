"""From a file's bytes to `Block`s: headings, paragraphs, lists, tables and code, with pages.

Two readers:

- PDF: pdfminer.six's layout analysis, one page at a time, so every block knows its page.
  Headings are told apart by font size (larger than the body text; bold lines of body size
  count as the lowest level), lists by their bullets or numbers, code by a monospaced font.
  Running headers and footers (the same line in the top or bottom band of most pages) and
  bare page numbers are dropped.
- Everything else: markitdown's converter for the type (DOCX, PPTX, HTML, Markdown, plain
  text) gives Markdown, which `parse_markdown` splits into blocks. PPTX slides are pages.

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
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from video_research.documents.guards import ArchiveLimits, check_archive, check_text
from video_research.support.errors import ToolFailure, invalid_input

logger = logging.getLogger(__name__)

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
        extracted = _extract_pdf(data, name)
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
        raise _unreadable(name, document_type, exc) from exc
    if document_type is DocumentType.TEXT:
        blocks = list(_plain_blocks(markdown))
    else:
        blocks = list(parse_markdown(markdown, front_matter=document_type is DocumentType.MARKDOWN))
    pages = {block.page for block in blocks if block.page is not None}
    if document_type is DocumentType.DOCX:
        title = docx_title(data) or title
    return Extracted(
        title=_title(title, blocks, name),
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
                if declared and not _JUNK_TITLE.match(declared):
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


def _title(declared: str | None, blocks: list[Block], name: str) -> str:
    if declared and declared.strip() and not _JUNK_TITLE.match(declared.strip()):
        return declared.strip()
    for block in blocks:
        if block.kind == "heading":
            return block.text
    return Path(name).stem


_JUNK_TITLE = re.compile(
    r"^(\(?(untitled|anonymous)\)?|microsoft (word|powerpoint) - .*|\s*)$", re.I
)


def _unreadable(name: str, document_type: DocumentType, exc: Exception) -> ToolFailure:
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return invalid_input(
        f"{name} could not be read as {document_type.value.upper()}: {detail[:300]}",
        hint="The file looks corrupt or is not really of this type. Open and re-save it, or pass "
        "the right document_type.",
    )


# ------------------------------------------------------------------ PDF
_GLYPH_BULLET = re.compile(r"^[•◦▪▫‣⁃∙·●○■□]\s*")
_BULLET = re.compile(r"^(?:[•◦▪▫‣⁃∙·●○■□–—*-]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+")
_PAGE_NUMBER = re.compile(r"^(page\s*)?\d{1,4}(\s*(of|/)\s*\d{1,4})?$", re.I)
_EDGE_BAND = 0.07
"""Fraction of the page height at the top and bottom where running headers live."""


@dataclass
class _Line:
    page: int
    text: str
    size: float
    bold: bool
    mono: bool
    box: int
    """Index of the text box on its page (lines of one box belong together)."""
    edge: bool
    """In the top or bottom band of the page."""


def _pdf_lines(data: bytes, name: str) -> tuple[list[_Line], int, str | None]:
    """Every text line of the PDF with its font facts, the page count and the Title."""
    from pdfminer.converter import PDFPageAggregator
    from pdfminer.layout import LAParams, LTChar, LTTextContainer, LTTextLine
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    try:
        document = PDFDocument(PDFParser(io.BytesIO(data)))
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise invalid_input(
            f"{name} is encrypted with a password.",
            hint="Remove the password (e.g. qpdf --decrypt --password=... in.pdf out.pdf) and ingest it again.",
        ) from exc
    except Exception as exc:
        raise _unreadable(name, DocumentType.PDF, exc) from exc
    if not document.is_extractable:
        # The "no copy" permission binds viewers, not readers of the text: ordinary papers
        # carry it with an empty owner password, so it is noted and the text read anyway.
        logger.warning("%s: the PDF's permissions deny copying; its text is indexed anyway", name)
    title = _pdf_title(document)
    manager = PDFResourceManager()
    device = PDFPageAggregator(manager, laparams=LAParams())
    interpreter = PDFPageInterpreter(manager, device)
    lines: list[_Line] = []
    page_number = 0
    try:
        for page in PDFPage.create_pages(document):
            page_number += 1
            interpreter.process_page(page)
            layout = device.get_result()
            height = layout.height or 1.0
            boxes = [el for el in layout if isinstance(el, LTTextContainer)]
            for box_index, box in enumerate(boxes):
                for line in box:
                    if not isinstance(line, LTTextLine):
                        continue
                    text = " ".join(line.get_text().split())
                    chars = [c for c in line if isinstance(c, LTChar)]
                    if not text or not chars:
                        continue
                    fonts = Counter(c.fontname for c in chars)
                    font = fonts.most_common(1)[0][0].lower()
                    edge = line.y0 > height * (1 - _EDGE_BAND) or line.y1 < height * _EDGE_BAND
                    lines.append(
                        _Line(
                            page=page_number,
                            text=text,
                            size=round(statistics.median(c.size for c in chars) * 2) / 2,
                            bold=any(w in font for w in ("bold", "black", "heavy", "semibold")),
                            mono=any(w in font for w in ("courier", "mono", "consolas", "code")),
                            box=box_index,
                            edge=edge,
                        )
                    )
    except ToolFailure:
        raise
    except Exception as exc:
        raise _unreadable(name, DocumentType.PDF, exc) from exc
    return lines, page_number, title


def _pdf_title(document: Any) -> str | None:
    for info in document.info or []:
        raw = info.get("Title")
        if isinstance(raw, bytes):
            if raw.startswith(b"\xfe\xff"):
                return raw[2:].decode("utf-16-be", errors="replace")
            return raw.decode("latin-1", errors="replace")
        if isinstance(raw, str):
            return raw
    return None


def _drop_running_lines(lines: list[_Line], page_count: int) -> list[_Line]:
    """Without bare page numbers and the header/footer lines repeated on most pages."""

    def shape(text: str) -> str:
        return re.sub(r"\d+", "#", text.lower())

    pages_per_shape: dict[str, set[int]] = {}
    for line in lines:
        if line.edge:
            pages_per_shape.setdefault(shape(line.text), set()).add(line.page)
    threshold = max(3, page_count // 2)
    running = {s for s, pages in pages_per_shape.items() if len(pages) >= threshold}
    return [
        line
        for line in lines
        if not (line.edge and (shape(line.text) in running or _PAGE_NUMBER.match(line.text)))
    ]


def _heading_levels(lines: list[_Line]) -> tuple[float, dict[float, int]]:
    """(body font size, heading size -> level): sizes larger than the body, largest first."""
    weight: Counter[float] = Counter()
    for line in lines:
        weight[line.size] += len(line.text)
    body = weight.most_common(1)[0][0]
    larger = sorted(
        {line.size for line in lines if line.size >= body * 1.1 and len(line.text) <= 200},
        reverse=True,
    )
    return body, {size: level for level, size in enumerate(larger[:5], start=1)}


def _pdf_role(
    line: _Line, body: float, levels: dict[float, int], body_bold: bool
) -> tuple[BlockKind, int]:
    if line.size in levels:
        return "heading", levels[line.size]
    if line.mono:
        return "code", 0
    if line.bold and not body_bold and line.size >= body and len(line.text) <= 120:
        return "heading", len(levels) + 1
    if _BULLET.match(line.text):
        return "list", 0
    return "text", 0


def _extract_pdf(data: bytes, name: str) -> Extracted:
    lines, page_count, title = _pdf_lines(data, name)
    lines = _drop_running_lines(lines, page_count)
    if not lines:
        return Extracted(title=Path(name).stem, blocks=[], page_count=page_count)
    body, levels = _heading_levels(lines)
    body_bold = Counter(line.bold for line in lines if line.size == body).most_common(1)[0][0]
    blocks = list(_pdf_blocks(lines, body, levels, body_bold))
    return Extracted(title=_title(title, blocks, name), blocks=blocks, page_count=page_count)


def _pdf_blocks(
    lines: Iterable[_Line], body: float, levels: dict[float, int], body_bold: bool
) -> Iterator[Block]:
    """Consecutive lines of one box and one role become one block."""
    current: Block | None = None
    current_box: tuple[int, int] | None = None
    current_lines = 0
    for line in lines:
        kind, level = _pdf_role(line, body, levels, body_bold)
        box = (line.page, line.box)
        in_box = current is not None and box == current_box
        if kind == "text" and in_box and current.kind == "list":
            kind = "list"  # a wrapped list item continues its bullet
        elif (
            kind == "list"
            and in_box
            and current.kind == "text"
            and not _GLYPH_BULLET.match(line.text)
        ):
            kind = "text"  # "12. " or "- " inside a wrapped paragraph is not a list
        same = (
            current is not None
            and current.kind == kind
            and current.level == level
            and box == current_box
            and kind != "heading"
        ) or (
            current is not None
            and kind == "heading"
            and current.kind == "heading"
            and current.level == level
            and box == current_box
        )
        if same and current is not None:
            current.text = _join_line(
                current.text, line.text, kind, starts_item=bool(_BULLET.match(line.text))
            )
            current_lines += 1
            continue
        if current is not None:
            yield _settled(current, current_lines)
        current = Block(kind, line.text, line.page, level)
        current_box = box
        current_lines = 1
    if current is not None:
        yield _settled(current, current_lines)


HEADING_MAX_LINES = 3
HEADING_MAX_CHARS = 150


def _settled(block: Block, lines: int) -> Block:
    """A "heading" longer than a heading runs (a bold or large-print paragraph) as text: as a
    heading it would head every passage below it and crowd out their text."""
    if block.kind == "heading" and (
        lines > HEADING_MAX_LINES or len(block.text) > HEADING_MAX_CHARS
    ):
        return Block("text", block.text, block.page)
    return block


def _join_line(text: str, line: str, kind: BlockKind, *, starts_item: bool) -> str:
    if kind == "code" or (kind == "list" and starts_item):
        return f"{text}\n{line}"
    if re.search(r"[A-Za-z]-$", text) and line[:1].islower():
        return text[:-1] + line  # a word hyphenated across lines
    return f"{text} {line}"
