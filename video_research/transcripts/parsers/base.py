"""What every transcript parser shares: the Cue, the parse result, text cleaning, and the
per-file budget that keeps a hostile file from taking unbounded time or memory.

Every parser is linear in the size of its input: no regular expression here can
backtrack over more than one tag, no loop compares a cue with more than a few earlier
ones. On top of that, a file's work is bounded three ways, each failing that file alone
with a `TranscriptTooLarge` that says what to do:

- bytes read (`MAX_FILE_BYTES`), before anything is parsed;
- cues and characters of caption text after parsing (`MAX_CUES`, `MAX_TEXT_CHARS`: far
  beyond the longest real video, which YouTube caps at 12 hours);
- wall time (`Budget`), checked as parsing and chunking go.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MAX_FILE_BYTES = 20 * 1024 * 1024
"""A transcript larger than this is not a transcript (a 10-hour stream's VTT is ~5 MB)."""
MAX_CUES = 300_000
"""A 12-hour stream has 20,000-40,000 caption cues."""
MAX_TEXT_CHARS = 2_500_000
"""Characters of caption text in one file: about 50 hours of speech."""
DEFAULT_BUDGET_SECONDS = 120.0
"""Wall time one file may take to parse and chunk (a 12-hour transcript takes ~2 s)."""


class TranscriptFormatError(ValueError):
    """The file is not a transcript in the format its name says; the message says where."""

    reason = "unreadable"


class TranscriptTooLarge(TranscriptFormatError):
    """The file is a transcript but beyond what one file may cost; the message says which limit."""

    reason = "too_large"


@dataclass(frozen=True, slots=True)
class Cue:
    start: float
    end: float
    text: str
    speaker: str = ""
    """Who says it (S1, S2, ... per video, from the speaker pass); empty when unknown."""
    language: str = ""
    """The language this line is in, when known line by line (speech: detected per
    sentence); "" when only the transcript's language is known."""
    language_probability: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"start": round(self.start, 3), "end": round(self.end, 3), "text": self.text}
        if self.speaker:
            out["speaker"] = self.speaker
        if self.language:
            out["language"] = self.language
            if self.language_probability is not None:
                out["language_probability"] = self.language_probability
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Cue:
        """A cue from `to_dict`'s shape (a stored segment, a transcribed sentence)."""
        return cls(
            data["start"],
            data["end"],
            data["text"],
            speaker=data.get("speaker") or "",
            language=data.get("language") or "",
            language_probability=data.get("language_probability"),
        )


@dataclass
class ParsedFile:
    cues: list[Cue]
    metadata: dict[str, Any] = field(default_factory=dict)
    """What the file itself says, in these keys when it says them: video_id, title, url,
    language, channel_title, channel_id, published_at (ISO date), description, and
    chapters ([{"start", "title"}], from Markdown headings)."""
    format: str = ""
    """Which parser read it: vtt, srt, json, json3, srv, ttml, tsv or text."""


class Budget:
    """A wall-time allowance for one file, checked every so many steps of a loop.

    It runs from creation; `pause()` stops the clock while the file waits for others (its
    batch's metadata lookup) and `resume()` restarts it, so only the file's own parsing
    and chunking count.
    """

    def __init__(self, seconds: float | None = DEFAULT_BUDGET_SECONDS) -> None:
        self.seconds = seconds
        self._spent = 0.0
        self._since: float | None = time.monotonic()
        self._steps = 0

    def pause(self) -> None:
        if self._since is not None:
            self._spent += time.monotonic() - self._since
            self._since = None

    def resume(self) -> None:
        if self._since is None:
            self._since = time.monotonic()

    def tick(self, what: str) -> None:
        """Count one step; every 4096 steps, check the clock."""
        self._steps += 1
        if self._steps & 4095 == 0:
            self.check(what)

    def check(self, what: str) -> None:
        if self.seconds is None:
            return
        running = time.monotonic() - self._since if self._since is not None else 0.0
        if self._spent + running > self.seconds:
            raise TranscriptTooLarge(
                f"{what} took longer than the {self.seconds:g} s allowed for one transcript file"
            )


UNLIMITED = Budget(None)

# `[^<>]*` and `[^{}]*`, not `[^>]*`: on a run of unclosed `<` the latter rescans the
# rest of the text from every `<` (quadratic); these stop at the next bracket.
_TAGS = re.compile(r"<[^<>]*>")
_ASS_TAGS = re.compile(r"\{\\[^{}]*\}")
_SPACES = re.compile(r"\s+")


def clean_text(raw: str) -> str:
    """Caption text on one line: tags, styling codes and HTML entities resolved
    (`&gt;&gt;` -> `>>`, `&nbsp;` -> space), spaces collapsed.

    Entities are decoded after tags are stripped, so an escaped `&lt;b&gt;` stays text.
    """
    text = _ASS_TAGS.sub("", _TAGS.sub("", raw))
    return _SPACES.sub(" ", html.unescape(text)).strip()


def finish(cues: list[Cue], budget: Budget = UNLIMITED) -> list[Cue]:
    """Cues sorted by start, empty ones dropped, checked against the per-file limits."""
    kept = [cue for cue in cues if cue.text]
    if len(kept) > MAX_CUES:
        raise TranscriptTooLarge(
            f"{len(kept)} captions is more than one transcript may hold ({MAX_CUES}); "
            "split the file"
        )
    chars = sum(len(cue.text) for cue in kept)
    if chars > MAX_TEXT_CHARS:
        raise TranscriptTooLarge(
            f"{chars} characters of caption text is more than one transcript may hold "
            f"({MAX_TEXT_CHARS}, about 50 hours of speech); split the file"
        )
    budget.check("parsing")
    kept.sort(key=lambda cue: cue.start)
    return kept


def number(value: Any, what: str) -> float | None:
    """A non-negative finite number of seconds from JSON or XML, None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TranscriptFormatError(f"{what} must be a number")
    if isinstance(value, str) and len(value) > 32:
        raise TranscriptFormatError(f"{what} {value[:32]!r}... is not a number")
    try:
        result = float(value)
    except (ValueError, OverflowError):
        raise TranscriptFormatError(f"{what} {str(value)[:40]!r} is not a number") from None
    if result != result or result < 0 or result > 1e9:
        raise TranscriptFormatError(f"{what} must be a non-negative number of seconds")
    return result
