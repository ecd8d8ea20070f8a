"""Plain-text transcripts: Markdown or text with timestamped paragraphs, and Whisper's TSV.

Stamped text (`.md`, `.markdown`, `.txt`) is what podcast sites, transcript wikis and
note-taking tools produce: a paragraph starts with its time, in any of

    [01:02:03] paragraph          [12:34](https://youtu.be/ID?t=754) paragraph
    (12:34) paragraph             **Speaker** [01:02:03]: paragraph
    01:02:03 - paragraph          01:02:03          (a stamp alone; the paragraph follows)

Lines after a stamp belong to its paragraph until the next stamp. Optional YAML front
matter (`title`, `url`, `channel`, `upload_date`, `language`, `description`, ...) is the
file's metadata; Markdown headings become chapters (a first `# Heading` before any
stamp is the title when the front matter has none). Markdown links, emphasis and HTML
are reduced to their words. A paragraph ends where the next begins; the last one gets
a duration from its length (150 words a minute).

Whisper TSV (`whisper --output_format tsv`) is `start<TAB>end<TAB>text` in integer
milliseconds under that header line.
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

FRONT_MATTER_MAX = 64 * 1024
WORDS_PER_SECOND = 2.5

_TIME = r"(?:(?P<h>\d{1,3}):)?(?P<m>\d{1,2}):(?P<s>\d{2})(?:[.,](?P<f>\d{1,3}))?"
_LEAD = r"^\s*(?:[-*+>]\s+)?"
_BOLD = r"(?:\*\*|__)?"
_SPEAKER = rf"(?:{_BOLD}(?P<speaker>[^\s\[\](){{}}<>#*_\d][^\[\](){{}}<>\n*]{{0,39}}?){_BOLD}\s*)?"
_REST = rf"{_BOLD}\s*[:\-–—|]?\s*(?P<text>.*)$"
_STAMPED = (
    re.compile(rf"{_LEAD}{_SPEAKER}{_BOLD}\[{_TIME}\](?:\([^()\s]{{0,2048}}\))?{_REST}"),
    re.compile(rf"{_LEAD}{_SPEAKER}{_BOLD}\({_TIME}\){_REST}"),
    re.compile(rf"{_LEAD}{_BOLD}{_TIME}{_BOLD}\s*(?:[-–—|]\s*(?P<text>.*))?$"),
)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_IMAGE = re.compile(r"!\[([^\[\]]*)\]\([^()]*\)")
_LINK = re.compile(r"\[([^\[\]]*)\]\([^()]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|`)")


def _seconds(match: re.Match[str]) -> float:
    hours, minutes, seconds = int(match["h"] or 0), int(match["m"]), int(match["s"])
    if seconds >= 60 or (hours and minutes >= 60):
        raise ValueError("not a time")
    fraction = int((match["f"] or "0").ljust(3, "0")) / 1000
    return hours * 3600 + minutes * 60 + seconds + fraction


def _markdown_words(line: str) -> str:
    line = _IMAGE.sub(r"\1", line)
    line = _LINK.sub(r"\1", line)
    return _EMPHASIS.sub("", line)


def split_front_matter(content: str) -> tuple[dict[str, Any], str]:
    """(front matter as a dict, the rest of the text); ({}, content) without front matter."""
    text = content.lstrip("\ufeff")
    if not text.startswith("---"):
        return {}, content
    first_line_end = text.find("\n")
    if first_line_end < 0 or text[:first_line_end].strip() != "---":
        return {}, content
    close = re.compile(r"^(?:---|\.\.\.)\s*$", re.MULTILINE).search(
        text, first_line_end + 1, first_line_end + 1 + FRONT_MATTER_MAX
    )
    if close is None:
        return {}, content
    block = text[first_line_end + 1 : close.start()]
    return _front_matter(block), text[close.end() :]


def _front_matter(block: str) -> dict[str, Any]:
    """YAML front matter read safely (no aliases, no tags), falling back to `key: value`."""
    import yaml

    class NoAliasLoader(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise yaml.YAMLError("aliases are not allowed in front matter")
            return super().compose_node(parent, index)

    try:
        data = yaml.load(block, Loader=NoAliasLoader)  # noqa: S506 - a SafeLoader subclass
    except (yaml.YAMLError, RecursionError, ValueError):
        data = None
    if not isinstance(data, dict):
        data = {}
        for line in block.splitlines():
            key, colon, value = line.partition(":")
            if colon and re.fullmatch(r"[A-Za-z_][\w-]{0,40}", key.strip()):
                data[key.strip()] = value.strip().strip("'\"")
    found: dict[str, Any] = {}
    for key, value in data.items():
        if (
            isinstance(key, str)
            and isinstance(value, str | int | float)
            and not isinstance(value, bool)
        ):
            found[key.strip().lower()] = str(value).strip()
        elif isinstance(key, str) and hasattr(value, "isoformat"):  # YAML dates
            found[key.strip().lower()] = value.isoformat()
    return found


_FRONT_MATTER_KEYS = {
    "title": "title",
    "url": "url",
    "link": "url",
    "webpage_url": "url",
    "video_url": "url",
    "video_id": "video_id",
    "id": "video_id",
    "channel": "channel_title",
    "channel_title": "channel_title",
    "uploader": "channel_title",
    "author": "channel_title",
    "podcast": "channel_title",
    "channel_id": "channel_id",
    "upload_date": "published_at",
    "published_at": "published_at",
    "published": "published_at",
    "date": "published_at",
    "language": "language",
    "lang": "language",
    "description": "description",
}


def parse_stamped_text(content: str, budget: Budget = UNLIMITED) -> ParsedFile:
    """Markdown or plain text whose paragraphs start with timestamps."""
    front, body = split_front_matter(content)
    metadata: dict[str, Any] = {}
    for key, value in front.items():
        target = _FRONT_MATTER_KEYS.get(key)
        if target and value and target not in metadata:
            metadata[target] = value
    paragraphs: list[tuple[float, list[str]]] = []
    chapters: list[dict[str, Any]] = []
    pending_heading: str | None = None
    for line in body.splitlines():
        budget.tick("parsing")
        heading = _HEADING.match(line)
        if heading:
            title = clean_text(_markdown_words(heading.group(2)))
            if not paragraphs and heading.group(1) == "#" and "title" not in metadata:
                metadata["title"] = title
            elif title:
                pending_heading = title[:300]
            continue
        stamp = _stamp(line)
        if stamp is not None:
            start, speaker, text = stamp
            if pending_heading is not None:
                chapters.append({"start": start, "title": pending_heading})
                pending_heading = None
            words = [f"{speaker}:"] if speaker else []
            paragraphs.append((start, [*words, text] if text else words))
        elif paragraphs and line.strip():
            paragraphs[-1][1].append(line)
    if not paragraphs:
        raise TranscriptFormatError(
            "no timestamps: a text transcript needs paragraphs that start with a time, "
            "e.g. '[00:01:05] words', '(1:05) words' or '00:01:05 - words'"
        )
    cues: list[Cue] = []
    for n, (start, lines) in enumerate(paragraphs):
        budget.tick("parsing")
        text = clean_text(_markdown_words(" ".join(lines)))
        following = paragraphs[n + 1][0] if n + 1 < len(paragraphs) else None
        if following is None or following <= start:
            end = start + max(2.0, len(text.split()) / WORDS_PER_SECOND)
        else:
            end = following
        cues.append(Cue(start, end, text))
    if chapters:
        metadata["chapters"] = chapters
    return ParsedFile(finish(cues, budget), metadata, "text")


def _stamp(line: str) -> tuple[float, str, str] | None:
    """(start, speaker, text) of a line that starts a paragraph with a timestamp."""
    if not line or ":" not in line[:200]:
        return None
    for pattern in _STAMPED:
        match = pattern.match(line)
        if match:
            try:
                start = _seconds(match)
            except ValueError:
                return None
            speaker = (match.groupdict().get("speaker") or "").strip()
            return start, clean_text(speaker), match["text"] or ""
    return None


TSV_HEADER = re.compile(r"^\ufeff?start\tend\ttext\s*$", re.IGNORECASE)


def parse_tsv(content: str, budget: Budget = UNLIMITED) -> ParsedFile:
    """Whisper's TSV: a `start<TAB>end<TAB>text` header, then one segment per line (ms)."""
    lines = content.lstrip("\ufeff").splitlines()
    if not lines or not TSV_HEADER.match(lines[0]):
        raise TranscriptFormatError("not Whisper TSV: the first line must be 'start\\tend\\ttext'")
    rows = [line.split("\t", 2) for line in lines[1:] if line.strip()]
    in_seconds = any("." in row[0] for row in rows[:50] if row)
    scale = 1.0 if in_seconds else 0.001
    cues: list[Cue] = []
    for n, row in enumerate(rows, start=2):
        budget.tick("parsing")
        if len(row) != 3:
            raise TranscriptFormatError(f"line {n}: expected start, end and text separated by tabs")
        start = (number(row[0].strip(), f"line {n}: start") or 0.0) * scale
        end = (number(row[1].strip(), f"line {n}: end") or 0.0) * scale
        cues.append(Cue(start, max(start, end), clean_text(row[2])))
    return ParsedFile(finish(cues, budget), {}, "tsv")
