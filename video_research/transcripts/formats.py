"""The transcript formats index_transcript_files reads: one list, for the parsers and the
words that describe them.

`FORMATS` is the source of truth: parsers/__init__.py builds its suffix -> parser table
from it, and the tool's description (tools/table/transcripts.py) and file-type errors
name the formats from it, so what the tool says it reads is what it reads. Standard
library only: the tool table imports it to build the description without importing a
parser.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    label: str
    """What a user calls it ("WebVTT", "Whisper TSV")."""
    suffixes: tuple[str, ...]
    parser: str
    """The name of its parse function in video_research.transcripts.parsers."""


FORMATS: tuple[Format, ...] = (
    Format("WebVTT", (".vtt",), "parse_vtt"),
    Format("SRT", (".srt",), "parse_srt"),
    Format("JSON segments or YouTube json3", (".json", ".json3"), "parse_json"),
    Format(
        "YouTube timed text and TTML",
        (".srv1", ".srv2", ".srv3", ".ttml", ".dfxp", ".xml"),
        "parse_timedtext",
    ),
    Format("Whisper TSV", (".tsv",), "parse_tsv"),
    Format(
        "Markdown or text with [HH:MM:SS] stamps",
        (".md", ".markdown", ".txt"),
        "parse_stamped_text",
    ),
)

SUFFIXES: tuple[str, ...] = tuple(s for f in FORMATS for s in f.suffixes)


def described() -> str:
    """Every format with its suffixes, for descriptions: "WebVTT (.vtt), SRT (.srt), ..."."""
    return "; ".join(f"{f.label} ({', '.join(f.suffixes)})" for f in FORMATS)
