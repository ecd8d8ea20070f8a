"""Timed cues -> search chunks, sized in the embedding model's own word pieces.

The rules, each one a reason the search works:

- Sizes are counted with the local model's tokenizer (`knowledge.embeddings.local_tokenizer`),
  so a chunk is never silently truncated by the embedder (all-MiniLM-L6-v2 reads 254
  pieces). A chunk's body is at most `target_tokens` minus what its prefix (video title,
  chapter) takes; the prefix is what `TranscriptChunks` embeds in front of the body.
- A chunk never splits a caption cue: it holds whole cues, so its start and end times
  are exact cue times and the timestamp link lands where the words are spoken. The one
  exception is a single cue longer than a whole chunk (a transcript without timings
  pasted as one cue): it is cut at word boundaries first, with times interpolated.
- Consecutive chunks overlap by up to `overlap_tokens` of whole cues, so a sentence that
  straddles a boundary is whole in one of them.
- A chunk never crosses a chapter boundary, and carries its chapter's title.

Chapters come from the caller or from a video description, where YouTube reads them:
lines that start (or end) with a timestamp, the first at 0:00, in increasing order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from video_research.knowledge.embeddings import LOCAL_MAX_TOKENS, local_tokenizer
from video_research.transcripts.parsers import Cue

DEFAULT_TARGET_TOKENS = 200
DEFAULT_OVERLAP_TOKENS = 40
MIN_BODY_TOKENS = 64
"""A long title or chapter never squeezes a chunk's own words below this."""
CHAPTER_TITLE_MAX = 300
"""Characters of a chapter title kept from a description (the tools' chapter schema limit)."""


@dataclass(frozen=True)
class Chapter:
    start: float
    title: str


@dataclass(frozen=True)
class Chunk:
    index: int
    start: float
    end: float
    text: str
    """The cues' texts, one per line."""
    first_cue: int
    last_cue: int
    """Indices into the cue list the chunker returns with the chunks (inclusive)."""
    chapter: str | None
    tokens: int


_CHAPTER_TIME = r"\(?\[?((?:\d{1,2}:)?\d{1,2}:\d{2})\]?\)?"
_CHAPTER_START = re.compile(rf"^\s*{_CHAPTER_TIME}\s*[-–—:|.)]*\s*(.+?)\s*$")
_CHAPTER_END = re.compile(rf"^\s*(.+?)\s*[-–—:|(]*\s*{_CHAPTER_TIME}\s*$")


def _clock(value: str) -> int:
    seconds = 0
    for part in value.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def parse_chapters(description: str | None) -> list[Chapter]:
    """The chapter list YouTube would show for a description; [] when it shows none.

    YouTube's rule: timestamped lines, the first at 0:00, increasing, at least two
    (YouTube itself wants three and ten seconds apart; two is enough to help search).
    """
    chapters: list[Chapter] = []
    for line in (description or "").splitlines():
        match = _CHAPTER_START.match(line)
        if match:
            clock, title = match.group(1), match.group(2)
        else:
            match = _CHAPTER_END.match(line)
            if not match:
                continue
            title, clock = match.group(1), match.group(2)
        title = title.strip(" -–—:|")[:CHAPTER_TITLE_MAX].rstrip()
        if not title:
            continue
        start = _clock(clock)
        if chapters and start <= chapters[-1].start:
            continue
        chapters.append(Chapter(float(start), title))
    if len(chapters) < 2 or chapters[0].start != 0:
        return []
    return chapters


def _token_counts(texts: Sequence[str]) -> list[int]:
    encodings = local_tokenizer().encode_batch(list(texts), add_special_tokens=False)
    return [len(encoding.ids) for encoding in encodings]


def count(text: str) -> int:
    return _token_counts([text])[0] if text else 0


def _split_cue(cue: Cue, limit: int) -> list[Cue]:
    """A cue of more than `limit` word pieces cut into pieces at word boundaries."""
    encoding = local_tokenizer().encode(cue.text, add_special_tokens=False)
    offsets, words = encoding.offsets, encoding.word_ids
    cuts: list[int] = []  # char offsets where a new piece begins
    piece_start = 0
    for position in range(1, len(offsets) + 1):
        if position - piece_start < limit and position < len(offsets):
            continue
        if position == len(offsets):
            break
        cut = position
        # Back up to the first word piece of the word, unless the word alone is too long.
        while cut > piece_start + 1 and words[cut] is not None and words[cut] == words[cut - 1]:
            cut -= 1
        if cut == piece_start + 1 and words[cut] == words[cut - 1]:
            cut = position
        cuts.append(offsets[cut][0])
        piece_start = cut
    bounds = [0, *cuts, len(cue.text)]
    span = cue.end - cue.start
    pieces = []
    for low, high in zip(bounds, bounds[1:], strict=False):
        text = cue.text[low:high].strip()
        if text:
            pieces.append(
                Cue(
                    round(cue.start + span * low / len(cue.text), 3),
                    round(cue.start + span * high / len(cue.text), 3),
                    text,
                )
            )
    return pieces


def fit_cues(cues: Sequence[Cue], limit: int) -> tuple[list[Cue], list[int]]:
    """The cues with any longer than `limit` word pieces split; and each one's size."""
    sizes = _token_counts([cue.text for cue in cues]) if cues else []
    if all(size <= limit for size in sizes):
        return list(cues), sizes
    fitted: list[Cue] = []
    for cue, size in zip(cues, sizes, strict=True):
        fitted.extend(_split_cue(cue, limit) if size > limit else [cue])
    return fitted, _token_counts([cue.text for cue in fitted])


def _chapter_of(start: float, chapters: Sequence[Chapter]) -> int:
    """Index of the chapter a cue starting at `start` belongs to (-1 before the first)."""
    found = -1
    for index, chapter in enumerate(chapters):
        if chapter.start <= start + 1e-6:
            found = index
        else:
            break
    return found


def chunk_cues(
    cues: Sequence[Cue],
    *,
    title: str = "",
    chapters: Sequence[Chapter] = (),
    target_tokens: int = DEFAULT_TARGET_TOKENS,
    overlap_tokens: int = DEFAULT_OVERLAP_TOKENS,
) -> tuple[list[Chunk], list[Cue]]:
    """Chunks of whole cues, and the cue list their `first_cue`/`last_cue` index into.

    Each chunk's body is at most `body_budget(title, chapter, target_tokens)` word pieces.
    """
    if not 0 <= overlap_tokens < target_tokens:
        raise ValueError("overlap_tokens must be at least 0 and less than target_tokens")
    chapters = sorted(chapters, key=lambda c: c.start)
    title_tokens = count(title)
    budgets = [
        body_budget(title_tokens, count(chapter.title), target_tokens) for chapter in chapters
    ]
    default_budget = body_budget(title_tokens, 0, target_tokens)
    fitted, sizes = fit_cues(cues, min([default_budget, *budgets]))
    chunks: list[Chunk] = []
    position = 0
    while position < len(fitted):
        chapter_index = _chapter_of(fitted[position].start, chapters)
        budget = budgets[chapter_index] if chapter_index >= 0 else default_budget
        end, used = position, 0
        while (
            end < len(fitted)
            and used + sizes[end] <= budget
            and _chapter_of(fitted[end].start, chapters) == chapter_index
        ):
            used += sizes[end]
            end += 1
        chunks.append(
            Chunk(
                index=len(chunks),
                start=fitted[position].start,
                end=max(cue.end for cue in fitted[position:end]),
                text="\n".join(cue.text for cue in fitted[position:end]),
                first_cue=position,
                last_cue=end - 1,
                chapter=chapters[chapter_index].title if chapter_index >= 0 else None,
                tokens=used,
            )
        )
        if end >= len(fitted):
            break
        if _chapter_of(fitted[end].start, chapters) != chapter_index:
            position = end  # a new chapter starts fresh: no overlap across chapters
            continue
        back, carried = end, 0
        while back - 1 > position and carried + sizes[back - 1] <= overlap_tokens:
            back -= 1
            carried += sizes[back]
        position = back
    return chunks, fitted


def body_budget(title_tokens: int, chapter_tokens: int, target_tokens: int) -> int:
    """Word pieces a chunk's own words may take beside its title and chapter prefix."""
    prefix = title_tokens + chapter_tokens + (2 if chapter_tokens else 1)
    ceiling = LOCAL_MAX_TOKENS - prefix
    return max(min(target_tokens - prefix, ceiling), MIN_BODY_TOKENS)
