"""XML captions: YouTube's timedtext (srv1, srv2, srv3) and TTML, as yt-dlp writes them.

- srv3: `<timedtext format="3"><body><p t="1200" d="2400">words<s t="300">more</s></p>`
  (milliseconds); srv2: `<timedtext><text t=".." d="..">`; srv1: `<transcript><text
  start="1.2" dur="2.4">` (seconds).
- TTML (`.ttml`, `.dfxp`, `.xml`): `<tt><body><div><p begin="00:00:01.200"
  end="00:00:03.600">`, with clock times, offsets (`1.2s`, `1200ms`, `30f`, `12000t`)
  and `<br/>` line breaks; `xml:lang` on `<tt>` is the language.

Parsed with defusedxml (`forbid_dtd=True`): a file with a DTD, entity declarations or
external references is refused before anything is expanded (no billion laughs, no XXE).
Caption text inside the XML is often HTML-escaped a second time (`&amp;#39;`); it goes
through `clean_text` like every other format.
"""

from __future__ import annotations

import re
from typing import Any

from video_research.transcripts.parsers.base import (
    UNLIMITED,
    Budget,
    Cue,
    ParsedFile,
    TranscriptFormatError,
    clean_text,
    finish,
    number,
)

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_CLOCK = re.compile(r"^(\d{1,5}):(\d{2}):(\d{2})(?:([.:])(\d{1,9}))?$")
_OFFSET = re.compile(r"^(\d{1,12}(?:\.\d{1,9})?)(h|m|s|ms|f|t)$")


def _root(content: str) -> Any:
    import defusedxml.ElementTree as safe_tree
    from defusedxml import DefusedXmlException

    try:
        return safe_tree.fromstring(content.lstrip("\ufeff"), forbid_dtd=True)
    except DefusedXmlException as exc:
        raise TranscriptFormatError(
            f"refused: the XML has a DTD or entity declarations ({type(exc).__name__}), "
            "which caption files never need"
        ) from None
    except RecursionError:
        raise TranscriptFormatError("not a transcript: XML nested too deeply") from None
    except Exception as exc:  # ParseError and the expat errors it wraps
        raise TranscriptFormatError(f"not XML: {str(exc)[:200]}") from None


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _text(element: Any) -> str:
    """The words of an element and its children in document order, <br/> as a space
    (walked with a stack: no recursion, however deep the XML)."""
    parts: list[str] = []
    stack: list[tuple[Any, bool]] = [(element, False)]
    while stack:
        node, closing = stack.pop()
        if closing:
            if node is not element and node.tail:
                parts.append(node.tail)
            continue
        stack.append((node, True))
        if _local(node.tag) == "br" and node is not element:
            parts.append(" ")
        elif node.text:
            parts.append(node.text)
        stack.extend((child, False) for child in reversed(node))
    return clean_text("".join(parts))


def _captions(root: Any, names: tuple[str, ...], budget: Budget) -> list[Any]:
    """The caption elements in document order, outermost only: an element named like a
    caption inside another is part of its text, not a caption of its own (so each
    element is read once, however the XML nests)."""
    found: list[Any] = []
    stack = [root]
    while stack:
        budget.tick("parsing")
        node = stack.pop()
        if node is not root and _local(node.tag) in names:
            found.append(node)
            continue
        stack.extend(reversed(node))
    return found


def parse_timedtext(content: str, budget: Budget = UNLIMITED) -> ParsedFile:
    """YouTube srv1/srv2/srv3 XML, or TTML when the root element is <tt>."""
    root = _root(content)
    if _local(root.tag) == "tt":
        return _ttml(root, budget)
    if _local(root.tag) not in ("timedtext", "transcript"):
        raise TranscriptFormatError(
            f"not YouTube timedtext or TTML: the root element is <{_local(root.tag)}>"
        )
    cues: list[Cue] = []
    for element in _captions(root, ("p", "text"), budget):
        attributes = element.attrib
        if "start" in attributes:  # srv1: seconds
            start = number(attributes.get("start"), "start") or 0.0
            length = number(attributes.get("dur"), "dur") or 0.0
        else:  # srv2/srv3: milliseconds
            start = (number(attributes.get("t"), "t") or 0.0) / 1000
            length = (number(attributes.get("d"), "d") or 0.0) / 1000
        cues.append(Cue(start, start + length, _text(element)))
    return ParsedFile(finish(cues, budget), {}, "srv")


def _ttml(root: Any, budget: Budget) -> ParsedFile:
    rates = {
        "frame": _rate(root, "frameRate", 30.0),
        "tick": _rate(root, "tickRate", 1.0),
    }
    cues: list[Cue] = []
    for element in _captions(root, ("p",), budget):
        begin = _ttml_time(element.get("begin"), rates)
        if begin is None:
            continue
        end = _ttml_time(element.get("end"), rates)
        if end is None:
            end = begin + (_ttml_time(element.get("dur"), rates) or 0.0)
        cues.append(Cue(begin, max(begin, end), _text(element)))
    metadata: dict[str, Any] = {}
    language = root.get(_XML_LANG)
    if language and re.fullmatch(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*", language):
        metadata["language"] = language
    return ParsedFile(finish(cues, budget), metadata, "ttml")


def _rate(root: Any, name: str, default: float) -> float:
    for key, value in root.attrib.items():
        if _local(key) == name:
            rate = number(value, name)
            return rate if rate else default
    return default


def _ttml_time(value: str | None, rates: dict[str, float]) -> float | None:
    """Seconds of a TTML time expression: clock time (with fraction or frames) or offset."""
    if not value:
        return None
    value = value.strip()
    clock = _CLOCK.match(value)
    if clock:
        hours, minutes, seconds, separator, fraction = clock.groups()
        total = float(int(hours) * 3600 + int(minutes) * 60 + int(seconds))
        if fraction and separator == ".":
            total += float(f"0.{fraction}")
        elif fraction:
            total += int(fraction) / rates["frame"]
        return float(total)
    offset = _OFFSET.match(value)
    if offset:
        amount, unit = float(offset.group(1)), offset.group(2)
        scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}.get(unit)
        if scale is None:
            scale = 1.0 / rates["frame" if unit == "f" else "tick"]
        return amount * scale
    raise TranscriptFormatError(f"not a TTML time: {value[:40]!r}")
