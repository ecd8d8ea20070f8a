"""PDF to `Block`s: pdfminer.six's layout analysis, one page at a time, so every block
knows its page.

Headings are told apart by font size (larger than the body text; bold lines of body size
count as the lowest level), lists by their bullets or numbers, code by a monospaced font.
Running headers and footers (the same line in the top or bottom band of most pages) and
bare page numbers are dropped.
"""

from __future__ import annotations

import io
import logging
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from video_research.documents.blocks import (
    Block,
    BlockKind,
    DocumentType,
    Extracted,
    title_for,
    unreadable,
)
from video_research.support.errors import ToolFailure, invalid_input

logger = logging.getLogger(__name__)

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
        raise unreadable(name, DocumentType.PDF, exc) from exc
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
        raise unreadable(name, DocumentType.PDF, exc) from exc
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


def extract_pdf(data: bytes, name: str) -> Extracted:
    lines, page_count, title = _pdf_lines(data, name)
    lines = _drop_running_lines(lines, page_count)
    if not lines:
        return Extracted(title=Path(name).stem, blocks=[], page_count=page_count)
    body, levels = _heading_levels(lines)
    body_bold = Counter(line.bold for line in lines if line.size == body).most_common(1)[0][0]
    blocks = list(_pdf_blocks(lines, body, levels, body_bold))
    return Extracted(title=title_for(title, blocks, name), blocks=blocks, page_count=page_count)


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
        # (current is not None again below: mypy does not carry it over from in_box)
        in_box = current is not None and box == current_box
        if kind == "text" and in_box and current is not None and current.kind == "list":
            kind = "list"  # a wrapped list item continues its bullet
        elif (
            kind == "list"
            and in_box
            and current is not None
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
