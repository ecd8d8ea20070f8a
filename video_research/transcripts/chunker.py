"""Timed cues -> search chunks, sized in the embedding model's own word pieces.

The rules, each one a reason the search works:

- Sizes are counted in the tokens of the model that embeds the chunks (the embedder's
  `token_counter()`, `knowledge.embedders.tokens`), so a chunk is never silently truncated
  by the embedder (all-MiniLM-L6-v2 reads 254 pieces; use-multilingual any length). A chunk's body is at most `target_tokens` minus what its prefix (video title,
  chapter) takes; the prefix is what `TranscriptChunks` embeds in front of the body.
- A chunk never splits a caption cue: it holds whole cues, so its start and end times
  are exact cue times and the timestamp link lands where the words are spoken. The one
  exception is a single cue longer than a whole chunk (a transcript without timings
  pasted as one cue): it is cut at word boundaries first, with times interpolated.
- A chunk is a moment: whole sentences, at most MOMENT_SECONDS of the video, cut after
  its last full stop, so a hit's text is what was said there and its words and vector
  are those of that moment, not of a minute of talk. It never spans a pause of
  MOMENT_PAUSE_SECONDS, a scene cut (when the video's are known), a chapter start or a
  change of language (speech knows each sentence's).
- Only a chunk with no sentence end to cut at (unpunctuated captions) is cut mid-
  sentence; the next one then repeats up to `overlap_tokens` of whole cues, so the
  sentence is whole in one of them.
- A chunk carries its chapter's title.

Chapters come from the caller or from a video description, where YouTube reads them:
lines that start (or end) with a timestamp, the first at 0:00, in increasing order.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from video_research.knowledge.embedders.embeddings import default_token_counter
from video_research.knowledge.embedders.tokens import TokenCounter
from video_research.transcripts.parsers import UNLIMITED, Budget, Cue

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
    evidence: str = "author"
    """author (a description, .info.json, headings, the caller), container (the media
    file's own chapters) or file (a chapter file beside the video)."""
    signals: tuple[str, ...] = ()
    """Where exactly they came from, e.g. ("description",)."""


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
    speaker: str = ""
    """Who speaks in it: a speaker change is a wall, so a chunk has one speaker."""


_CHAPTER_TIME = r"\(?\[?((?:\d{1,2}:)?\d{1,2}:\d{2})\]?\)?"
_CHAPTER_START = re.compile(rf"^\s*{_CHAPTER_TIME}\s*[-–—:|.)]*\s*(.+?)\s*$")
_CHAPTER_END = re.compile(rf"^\s*(.+?)\s*[-–—:|(]*\s*{_CHAPTER_TIME}\s*$")


def _clock(value: str) -> int:
    seconds = 0
    for part in value.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def line_chapter(line: str) -> tuple[float, str] | None:
    """(start, title) of a line that starts (or ends) with a timestamp, else None."""
    match = _CHAPTER_START.match(line)
    if match:
        clock, title = match.group(1), match.group(2)
    else:
        match = _CHAPTER_END.match(line)
        if not match:
            return None
        title, clock = match.group(1), match.group(2)
    title = title.strip(" -–—:|")[:CHAPTER_TITLE_MAX].rstrip()
    if not title:
        return None
    return float(_clock(clock)), title


def parse_chapters(description: str | None) -> list[Chapter]:
    """The chapter list YouTube would show for a description; [] when it shows none.

    YouTube's rule: timestamped lines, the first at 0:00, increasing, at least two
    (YouTube itself wants three and ten seconds apart; two is enough to help search).
    """
    chapters: list[Chapter] = []
    for line in (description or "").splitlines():
        found = line_chapter(line)
        if found is None:
            continue
        start, title = found
        if chapters and start <= chapters[-1].start:
            continue
        chapters.append(Chapter(start, title, "author", ("description",)))
    if len(chapters) < 2 or chapters[0].start != 0:
        return []
    return chapters


TOKEN_BATCH = 2048
"""Cue texts tokenized per call: bounds the memory of a 100,000-cue file."""
LONG_CUE_CHARS = 16384
"""A cue longer than this is never tokenized whole: it is cut, in slices of about this size."""
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_CJK_CHAR = re.compile(f"[{_CJK}]")
WORDS = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")
"""What "a word" is to the chunker: a run without spaces, or one CJK character (Chinese
and Japanese have no spaces; each character is a word to the embedding model)."""
_SENTENCE_END = frozenset(".!?…。！？")


def _slices(text: str) -> list[tuple[int, int]]:
    """(start, end) of pieces of about LONG_CUE_CHARS, each ending at a space if one is near."""
    bounds: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        end = min(start + LONG_CUE_CHARS, len(text))
        if end < len(text):
            space = max(text.rfind(" ", end - 1024, end), text.rfind("\n", end - 1024, end))
            if space > start:
                end = space + 1
        bounds.append((start, end))
        start = end
    return bounds


def _starts_word(text: str, at: int) -> bool:
    """Whether a cut before `text[at]` falls between two words."""
    if at == 0:
        return True
    before = text[at - 1]
    return before.isspace() or bool(_CJK_CHAR.match(before) or _CJK_CHAR.match(text[at]))


def _starts_sentence(text: str, at: int) -> bool:
    before = text[max(0, at - 8) : at].rstrip()
    return bool(before) and before[-1] in _SENTENCE_END


def _split_cue(
    cue: Cue, limit: int, tokens: TokenCounter, until: float | None = None
) -> list[tuple[Cue, int]]:
    """A cue of more than `limit` word pieces cut into pieces of at most `limit`, each with
    its size: at a sentence end when one is in the second half of a piece, else between
    words; inside a word only when that one word is longer than a piece. Times are
    interpolated by character position, over the cue's span or up to `until` (the next
    cue's start) when that comes sooner: rolling captions overlap, and a piece starting
    after the next cue would put the chunks' starts out of order. The last piece still
    ends at the cue's end. Linear: each token is looked at once."""
    text = cue.text
    cuts: list[tuple[int, int]] = []  # (char offset, tokens before it)
    piece_char, piece_tok = 0, 0
    word = sentence = inner = (0, 0)  # (char, token index) of the last cut candidates
    total = 0
    for low, high in _slices(text):
        pieces = tokens.pieces(text[low:high])
        previous_word_id = None
        for begin, word_id in zip(pieces.starts, pieces.words, strict=True):
            at, index = low + begin, total
            total += 1
            if _starts_word(text, at):
                word = (at, index)
                if _starts_sentence(text, at):
                    sentence = (at, index)
            if word_id != previous_word_id:
                inner = (at, index)  # the model's own word boundary (e.g. at punctuation)
            previous_word_id = word_id
            if index - piece_tok + 1 <= limit:
                continue
            if sentence[1] > piece_tok and sentence[1] - piece_tok >= limit // 2:
                cut = sentence
            elif word[1] > piece_tok:
                cut = word
            elif inner[1] > piece_tok:
                cut = inner
            else:
                cut = (at, index)
            cuts.append((cut[0], cut[1] - piece_tok))
            piece_char, piece_tok = cut
    cuts.append((len(text), total - piece_tok))
    span, length = cue.end - cue.start, max(len(text), 1)
    if until is not None:
        span = max(0.0, min(span, until - cue.start))
    parts: list[tuple[Cue, int]] = []
    low = 0
    for high, count in cuts:
        piece = text[low:high].strip()
        if piece:
            start = round(cue.start + span * low / length, 3)
            end = cue.end if high == len(text) else round(cue.start + span * high / length, 3)
            parts.append(
                (
                    Cue(
                        start,
                        max(start, end),
                        piece,
                        speaker=cue.speaker,
                        language=cue.language,
                        language_probability=cue.language_probability,
                    ),
                    count,
                )
            )
        low = high
    return parts


def fit_cues(
    cues: Sequence[Cue], limit: int, tokens: TokenCounter, budget: Budget = UNLIMITED
) -> tuple[list[Cue], list[int]]:
    """The cues with any longer than `limit` tokens split; and each one's size."""
    fitted: list[Cue] = []
    sizes: list[int] = []
    for start in range(0, len(cues), TOKEN_BATCH):
        batch = cues[start : start + TOKEN_BATCH]
        short = [cue.text for cue in batch if len(cue.text) <= LONG_CUE_CHARS]
        counts = iter(tokens.counts(short))
        for at, cue in enumerate(batch, start):
            size = next(counts) if len(cue.text) <= LONG_CUE_CHARS else limit + 1
            if size <= limit:
                fitted.append(cue)
                sizes.append(size)
                continue
            following = cues[at + 1].start if at + 1 < len(cues) else None
            for piece, piece_size in _split_cue(cue, limit, tokens, following):
                fitted.append(piece)
                sizes.append(piece_size)
        budget.check("chunking")
    return fitted, sizes


MOMENT_SECONDS = 30.0
"""A chunk spans at most this much of the video (a single longer caption aside): a moment
a link can land in, not a minute of talk whose words and vector blur five topics."""
MOMENT_PAUSE_SECONDS = 3.0
"""Silence between two lines that a chunk never spans: after it, a new thought (or the
next clip of a joined recording) begins."""


def _sentence_ends(cues: Sequence[Cue]) -> list[bool]:
    """Whether each cue ends a sentence (its text ends with a full stop, ! or ?)."""
    ends = []
    for cue in cues:
        text = cue.text.rstrip().rstrip("\"')]»”’）」")
        ends.append(bool(text) and text[-1] in _SENTENCE_END)
    return ends


def _walls(
    cues: Sequence[Cue], owners: Sequence[int], cuts: Sequence[float], pause: float
) -> list[bool]:
    """Whether a chunk may not run from cue i-1 into cue i: a chapter starts, a pause of
    `pause` seconds, a change of speaker, or a scene cut (one of `cuts`, seconds) comes
    between them. A line
    starting up to half a second before the cut counts as after it: speakers start the
    sentence as the slide changes."""
    ordered = sorted(cuts)
    walls = [False] * len(cues)
    for at in range(1, len(cues)):
        before, now = cues[at - 1], cues[at]
        if (
            owners[at] != owners[at - 1]
            or now.start - before.end > pause
            or now.speaker != before.speaker
            or now.language != before.language  # a moment is in one language
        ):
            walls[at] = True
            continue
        low = bisect.bisect_right(ordered, before.start + 0.5)
        walls[at] = low < len(ordered) and ordered[low] <= now.start + 0.5
    return walls


def chunk_cues(
    cues: Sequence[Cue],
    *,
    title: str = "",
    chapters: Sequence[Chapter] = (),
    target_tokens: int = DEFAULT_TARGET_TOKENS,
    overlap_tokens: int = DEFAULT_OVERLAP_TOKENS,
    max_seconds: float = MOMENT_SECONDS,
    pause_seconds: float = MOMENT_PAUSE_SECONDS,
    cuts: Sequence[float] = (),
    budget: Budget = UNLIMITED,
    tokens: TokenCounter | None = None,
) -> tuple[list[Chunk], list[Cue]]:
    """Chunks of whole cues (moments), and the cue list their `first_cue`/`last_cue`
    index into.

    A chunk is whole sentences: it grows a line at a time while its body stays within
    `body_budget(title, chapter, target_tokens, window)` tokens of `tokens` (the
    embedder's counter; the default model's when not given) and its span within
    `max_seconds`, and is then cut after its last complete sentence. It never spans a
    chapter start, a pause of `pause_seconds` or a scene cut (`cuts`, seconds). Only a
    chunk that holds no sentence end to cut at (captions without punctuation, a run-on
    speaker) is cut mid-sentence, and then the next one repeats up to `overlap_tokens`
    of its last lines, so the sentence is whole in one of them. Linear in the number of
    cues; `budget` bounds the wall time.
    """
    if not 0 <= overlap_tokens < target_tokens:
        raise ValueError("overlap_tokens must be at least 0 and less than target_tokens")
    tokens = tokens or default_token_counter()
    chapters = sorted(chapters, key=lambda c: c.start)
    title_tokens = tokens.count(title)
    rooms = [
        body_budget(title_tokens, tokens.count(chapter.title), target_tokens, tokens.window)
        for chapter in chapters
    ]
    default_room = body_budget(title_tokens, 0, target_tokens, tokens.window)
    fitted, sizes = fit_cues(cues, min([default_room, *rooms]), tokens, budget)
    starts = [chapter.start for chapter in chapters]
    owners = [bisect.bisect_right(starts, cue.start + 1e-6) - 1 for cue in fitted]
    walls = _walls(fitted, owners, cuts, pause_seconds)
    ends = _sentence_ends(fitted)
    chunks: list[Chunk] = []
    position = 0
    while position < len(fitted):
        budget.tick("chunking")
        chapter_index = owners[position]
        room = rooms[chapter_index] if chapter_index >= 0 else default_room
        end, used, sentence = position, 0, position
        while end < len(fitted) and (end == position or not walls[end]):
            too_long = fitted[end].end - fitted[position].start > max_seconds
            if end > position and (used + sizes[end] > room or too_long):
                break
            used += sizes[end]
            end += 1
            if ends[end - 1]:
                sentence = end
        full = end < len(fitted) and not walls[end]  # stopped by size or time, not a wall
        if full and sentence > position:
            end = sentence  # cut after the last whole sentence
            used = sum(sizes[position:end])
        members = fitted[position:end]
        chunks.append(
            Chunk(
                index=len(chunks),
                start=members[0].start,
                end=max(cue.end for cue in members),
                text="\n".join(cue.text for cue in members),
                first_cue=position,
                last_cue=end - 1,
                chapter=chapters[chapter_index].title if chapter_index >= 0 else None,
                tokens=used,
                speaker=members[0].speaker,
            )
        )
        if end >= len(fitted):
            break
        if walls[end] or ends[end - 1]:
            position = end  # a new sentence, chapter or scene starts fresh: no overlap
            continue
        back, carried = end, 0
        while back - 1 > position and carried + sizes[back - 1] <= overlap_tokens:
            back -= 1
            carried += sizes[back]
        position = back
    return chunks, fitted


def body_budget(
    title_tokens: int, chapter_tokens: int, target_tokens: int, window: int | None
) -> int:
    """Tokens a chunk's own words may take beside its title and chapter prefix, within the
    model's `window` (None: the model reads any length)."""
    prefix = title_tokens + chapter_tokens + (2 if chapter_tokens else 1)
    room = target_tokens - prefix if window is None else min(target_tokens, window) - prefix
    return max(room, MIN_BODY_TOKENS)
