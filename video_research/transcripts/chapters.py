"""The parts of a video: its chapters, each with a title, a start, an end and the evidence
it came from.

The author's chapters win when there are any: the timestamps of a YouTube description,
a yt-dlp .info.json, Markdown headings of a transcript, chapters the caller gave
(`author`); the chapters in a media file's container (`container`); a chapter file
beside the video (`file`, `chapter_files`). Otherwise they are computed from what
indexing already read (`computed`):

- topic shifts: the cosine between the mean vector of the speech windows in the
  CONTEXT seconds before a sentence and in those after it (the sentence windows are
  embedded for search anyway: no extra model call), as depth below its neighbours in
  the manner of TextTiling;
- the pause before the sentence (longer silence, likelier a new part);
- a scene cut and a new slide title on screen near it.

Each candidate boundary (a sentence start) gets a weighted sum of these signals; the
video gets one chapter per `seconds_per_chapter` of speech, boundaries picked best-first
and at least `min_seconds` apart. The weights and the two lengths are fitted by
`python -m tests.eval.chapters --fit` on half of the Coding Train videos and measured on
the other half (docs/chapters.md); it writes them to chapter_params.json, read here.

A computed chapter is titled by the slide title shown at its start when there is one,
else by the words that set its speech apart from the rest of the video (the most
distinctive content words, TF-IDF over the chapters).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import numpy as np

from video_research.transcripts.parsers import Cue

if TYPE_CHECKING:
    from video_research.support.schema_types.common.transcripts import (
        VideoChapter as ChapterShown,
    )

Evidence = Literal["author", "container", "file", "computed"]
AUTHOR: Final = "author"
CONTAINER: Final = "container"
FILE: Final = "file"
COMPUTED: Final = "computed"
EVIDENCE = (AUTHOR, CONTAINER, FILE, COMPUTED)
SIGNALS = ("topic", "pause", "scene", "slide")
TITLE_MAX = 300


@dataclass(frozen=True)
class Params:
    """How computed chapters are cut; fitted by `python -m tests.eval.chapters --fit`."""

    seconds_per_chapter: float = 150.0
    min_seconds: float = 45.0
    context: float = 60.0
    topic: float = 1.0
    pause: float = 0.5
    scene: float = 0.5
    slide: float = 1.5
    window_span: float = 20.0
    """Seconds after its start within which a stored unit of speech may hold words from
    after a boundary: the topic shift's "before" side ends this far before it (~20 s windows
    once; sentences, which start at the candidates, need none)."""


PARAMS_FILE = Path(__file__).with_name("chapter_params.json")
"""Written by `python -m tests.eval.chapters --fit` (the training half of the Coding Train
videos); the defaults above stand where it is missing or unreadable."""


def _fitted() -> Params:
    try:
        data = json.loads(PARAMS_FILE.read_text())
        known = {f.name for f in fields(Params)}
        return Params(**{k: float(v) for k, v in data.items() if k in known})
    except (OSError, ValueError, TypeError):
        return Params()


PARAMS = _fitted()
SCENE_NEAR = 2.0
"""A scene cut this close to a sentence start (seconds) counts for it."""
SLIDE_NEAR = 4.0
"""A new slide title this close to a sentence start counts for it."""
MIN_VIDEO_SECONDS = 60.0
"""Speech shorter than this is one chapter: there are no parts to find."""


@dataclass(frozen=True)
class Slide:
    """A stretch of on-screen text: when it appeared and its first line (its title)."""

    start: float
    title: str


@dataclass(frozen=True)
class VideoChapter:
    title: str
    start: float
    end: float
    evidence: Evidence
    signals: tuple[str, ...] = field(default=())

    def to_dict(self) -> ChapterShown:
        return {
            "title": self.title,
            "start": round(self.start, 2),
            "end": round(self.end, 2),
            "evidence": self.evidence,
            "signals": list(self.signals),
        }


def given(
    chapters: Sequence[tuple[float, str]],
    duration: float,
    evidence: Evidence,
    signals: Sequence[str],
) -> list[VideoChapter]:
    """Chapters someone made ((start, title) pairs) with their ends: each ends where the
    next starts, the last at `duration` (or at its own start when the length is unknown)."""
    ordered = sorted(
        ((max(0.0, float(start)), str(title).strip()[:TITLE_MAX]) for start, title in chapters),
        key=lambda pair: pair[0],
    )
    ordered = [pair for pair in ordered if pair[1]]
    out: list[VideoChapter] = []
    for n, (start, title) in enumerate(ordered):
        end = ordered[n + 1][0] if n + 1 < len(ordered) else max(duration, start)
        out.append(VideoChapter(title, start, end, evidence, tuple(signals)))
    return out


def stored(record: Mapping[str, Any]) -> list[ChapterShown]:
    """The chapters of a TranscriptVideos record as the tools show them; records written
    before chapters had ends and evidence ({start, title} pairs: an author's) get them."""
    try:
        raw = json.loads(record.get("chapters_json") or "[]")
    except ValueError:
        return []
    if not isinstance(raw, list):
        return []
    if all(isinstance(c, dict) and "evidence" in c for c in raw):
        return raw
    duration = float(record.get("duration_seconds") or 0.0)
    pairs = [(c.get("start", 0.0), c.get("title", "")) for c in raw if isinstance(c, dict)]
    return [c.to_dict() for c in given(pairs, duration, AUTHOR, ())]


# ----------------------------------------------------------------------------- computed


def compute(
    cues: Sequence[Cue],
    window_starts: Sequence[float],
    window_vectors: Any,
    *,
    cuts: Sequence[float] = (),
    slides: Sequence[Slide] = (),
    params: Params = PARAMS,
    count: int | None = None,
) -> list[VideoChapter]:
    """Chapters computed from a transcript's signals (see the module docstring). `count`
    overrides the number of chapters (the eval's peers get the same number)."""
    if not cues:
        return []
    duration = max(cue.end for cue in cues)
    candidates = candidate_scores(cues, window_starts, window_vectors, cuts, slides, params)
    deck = slide_deck(slides)
    if deck and count is None:
        return titled(cues, [0.0, *[t for t in deck if t > 0]], duration, slides, candidates)
    wanted = count if count is not None else chapter_count(cues, params)
    starts = pick(candidates, wanted - 1, duration, params.min_seconds)
    return titled(cues, [0.0, *starts], duration, slides, candidates)


SLIDE_MIN_SECONDS = 10.0
"""A slide shown for less than this is not a part of its own (a build, a flash)."""
DECK_SHARE = 0.5
"""Pictures whose titles mostly last under SLIDE_MIN_SECONDS are not a deck (a code editor
scrolling, a screencast): their text stays one signal among the others."""


def slide_deck(slides: Sequence[Slide]) -> list[float]:
    """The times the slide title changes when the pictures are a slide deck (most titles
    shown at least SLIDE_MIN_SECONDS; those are kept): a deck's titles are the parts its
    author made. [] otherwise."""
    changes = list(_slide_changes(slides))
    if len(changes) < 2:
        return []
    # the last slide stays until the end, however early the speech stops
    kept = [
        t
        for n, t in enumerate(changes)
        if n + 1 == len(changes) or changes[n + 1] - t >= SLIDE_MIN_SECONDS
    ]
    if len(kept) < 2 or len(kept) < DECK_SHARE * len(changes):
        return []
    return kept


def chapter_count(cues: Sequence[Cue], params: Params) -> int:
    duration = max(cue.end for cue in cues) - min(cue.start for cue in cues)
    if duration < MIN_VIDEO_SECONDS:
        return 1
    return max(1, round(duration / params.seconds_per_chapter))


@dataclass(frozen=True)
class Candidate:
    time: float
    score: float
    signals: tuple[str, ...]


def candidate_scores(
    cues: Sequence[Cue],
    window_starts: Sequence[float],
    window_vectors: Any,
    cuts: Sequence[float],
    slides: Sequence[Slide],
    params: Params,
) -> list[Candidate]:
    """Each sentence start after the first, scored by the weighted, standardised signals."""
    starts = _sentence_starts(cues)
    if not starts:
        return []
    times = np.array([cues[i].start for i in starts], dtype=np.float64)
    pauses = np.array([max(0.0, cues[i].start - cues[i - 1].end) for i in starts])
    pause_z = _standard(np.log1p(pauses))
    depth = _depth(times, np.asarray(window_starts, dtype=np.float64), window_vectors, params)
    topic_z = _standard(depth)
    cut_times = np.sort(np.asarray(cuts, dtype=np.float64))
    slide_times = _slide_changes(slides)
    out = []
    for n, at in enumerate(times):
        scene = _near(cut_times, at, SCENE_NEAR)
        slide = _near(slide_times, at, SLIDE_NEAR)
        score = (
            params.topic * topic_z[n]
            + params.pause * pause_z[n]
            + params.scene * scene
            + params.slide * slide
        )
        signals = tuple(
            name
            for name, on in (
                ("topic", topic_z[n] > 0.5),
                ("pause", pause_z[n] > 0.5),
                ("scene", scene),
                ("slide", slide),
            )
            if on
        )
        out.append(Candidate(float(at), float(score), signals))
    return out


def pick(
    candidates: Sequence[Candidate], wanted: int, duration: float, spacing: float
) -> list[float]:
    """Up to `wanted` boundary times, best score first, each at least `spacing` from the
    others, from the start and from the end."""
    chosen: list[float] = []
    for cand in sorted(candidates, key=lambda c: -c.score):
        if len(chosen) >= wanted:
            break
        if cand.time < spacing or duration - cand.time < spacing / 2:
            continue
        if any(abs(cand.time - t) < spacing for t in chosen):
            continue
        chosen.append(cand.time)
    return sorted(chosen)


def _sentence_starts(cues: Sequence[Cue]) -> list[int]:
    """Indices of cues that begin a sentence (after the first cue). Captions without
    punctuation: every cue."""
    ends = [cue.text.rstrip().rstrip("\"')]»”’").endswith((".", "!", "?", "…")) for cue in cues]
    if not any(ends):
        return list(range(1, len(cues)))
    return [i for i in range(1, len(cues)) if ends[i - 1]]


def _standard(values: np.ndarray) -> np.ndarray:
    if values.size == 0:
        return values
    spread = float(values.std())
    if spread < 1e-9:
        return np.zeros_like(values, dtype=np.float64)
    return (values - values.mean()) / spread


def _depth(times: np.ndarray, starts: np.ndarray, vectors: Any, params: Params) -> np.ndarray:
    """TextTiling depth at each time: how far the cosine between the speech before and after
    it falls below the highest cosine on either side (0 where no vectors are known)."""
    if vectors is None or len(starts) == 0:
        return np.zeros(len(times))
    order = np.argsort(starts, kind="stable")
    starts = starts[order]
    matrix = np.asarray(vectors, dtype=np.float64)[order]
    prefix = np.vstack([np.zeros((1, matrix.shape[1])), np.cumsum(matrix, axis=0)])
    sims = np.ones(len(times))
    for n, at in enumerate(times):
        # before: the units that end by `at` (a unit holds window_span seconds from its
        # start); after: those that start at or after it
        lo = np.searchsorted(starts, at - params.context - params.window_span)
        end = np.searchsorted(starts, at - params.window_span + 1e-6, side="right")
        mid = np.searchsorted(starts, at - 1e-6)
        hi = np.searchsorted(starts, at + params.context)
        if end <= lo or hi <= mid:
            continue
        left = prefix[end] - prefix[lo]
        right = prefix[hi] - prefix[mid]
        norm = float(np.linalg.norm(left) * np.linalg.norm(right))
        sims[n] = float(left @ right) / norm if norm > 0 else 1.0
    depth = np.zeros(len(times))
    for n in range(len(times)):
        around = (times >= times[n] - params.context) & (times <= times[n] + params.context)
        before = sims[(times <= times[n]) & around]
        after = sims[(times >= times[n]) & around]
        depth[n] = (before.max() - sims[n]) + (after.max() - sims[n])
    return depth


def _slide_changes(slides: Sequence[Slide]) -> np.ndarray:
    """Times a slide with a new title appeared."""
    times, last = [], None
    for slide in sorted(slides, key=lambda s: s.start):
        key = slide.title.strip().lower()
        if key and key != last:
            times.append(slide.start)
        last = key or last
    return np.asarray(times, dtype=np.float64)


def _near(times: np.ndarray, at: float, within: float) -> bool:
    if times.size == 0:
        return False
    index = int(np.searchsorted(times, at))
    return any(0 <= i < times.size and abs(times[i] - at) <= within for i in (index - 1, index))


# ----------------------------------------------------------------------------- titles

_WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ0-9'+#.-]*[A-Za-zÀ-ÿ0-9+#]|[A-Za-z]")
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "can't",
        "cannot",
        "could",
        "couldn't",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "get",
        "gets",
        "getting",
        "go",
        "going",
        "gonna",
        "got",
        "had",
        "hadn't",
        "has",
        "hasn't",
        "have",
        "haven't",
        "having",
        "he",
        "he'd",
        "he'll",
        "he's",
        "her",
        "here",
        "here's",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "how's",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "know",
        "let",
        "let's",
        "like",
        "look",
        "make",
        "me",
        "more",
        "most",
        "mustn't",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "ok",
        "okay",
        "on",
        "once",
        "one",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "really",
        "right",
        "said",
        "same",
        "say",
        "see",
        "shan't",
        "she",
        "she'd",
        "she'll",
        "she's",
        "should",
        "shouldn't",
        "so",
        "some",
        "something",
        "such",
        "than",
        "that",
        "that's",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "there's",
        "these",
        "they",
        "they'd",
        "they'll",
        "they're",
        "they've",
        "thing",
        "things",
        "think",
        "this",
        "those",
        "through",
        "to",
        "too",
        "um",
        "uh",
        "under",
        "until",
        "up",
        "us",
        "very",
        "want",
        "wanna",
        "was",
        "wasn't",
        "way",
        "we",
        "we'd",
        "we'll",
        "we're",
        "we've",
        "well",
        "were",
        "weren't",
        "what",
        "what's",
        "when",
        "when's",
        "where",
        "where's",
        "which",
        "while",
        "who",
        "who's",
        "whom",
        "why",
        "why's",
        "will",
        "with",
        "won't",
        "would",
        "wouldn't",
        "yeah",
        "you",
        "you'd",
        "you'll",
        "you're",
        "you've",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "actually",
        "maybe",
        "kind",
        "sort",
        "lot",
        "little",
        "bit",
        "put",
        "use",
        "using",
        "used",
        "need",
        "take",
        "going",
        "mean",
        "another",
        "first",
        "two",
        "three",
        "new",
        "back",
        "time",
        "thank",
        "thanks",
        "hi",
        "hello",
        "welcome",
        "video",
        "today",
        "oh",
        "alright",
        "gonna",
        "gotta",
        "anyway",
    ]
)
TITLE_WORDS = 3


def titled(
    cues: Sequence[Cue],
    starts: Sequence[float],
    duration: float,
    slides: Sequence[Slide],
    candidates: Sequence[Candidate] = (),
) -> list[VideoChapter]:
    """Computed chapters from their start times: ends, titles and signals."""
    signals = {c.time: c.signals for c in candidates}
    bounds = [*starts, max(duration, starts[-1])]
    texts = [
        " ".join(cue.text for cue in cues if bounds[n] <= cue.start < bounds[n + 1])
        for n in range(len(starts))
    ]
    keywords = distinctive_words(texts)
    slide_changes = sorted(slides, key=lambda s: s.start)
    out = []
    for n, start in enumerate(starts):
        shown = _slide_at(slide_changes, start)
        title = shown or " · ".join(keywords[n]) or f"Part {n + 1}"
        own = signals.get(start, ())
        if shown and "slide" not in own:
            own = (*own, "slide")
        out.append(VideoChapter(title[:TITLE_MAX], start, bounds[n + 1], COMPUTED, own))
    return out


def _slide_at(slides: Sequence[Slide], at: float) -> str:
    """The title of the slide on screen at `at` (one appearing within SLIDE_NEAR after it
    counts: the speaker often starts the part just before the slide changes)."""
    current = ""
    for slide in slides:
        if slide.start > at + SLIDE_NEAR:
            break
        current = slide.title.strip()
    return current


def distinctive_words(texts: Sequence[str], top: int = TITLE_WORDS) -> list[list[str]]:
    """For each text, the `top` content words most frequent in it and rarest in the others
    (TF-IDF over the texts), in their first spelling."""
    counts = []
    spelled: dict[str, str] = {}
    for text in texts:
        words = [w for w in _WORD.findall(text) if len(w) > 2]
        for word in words:
            spelled.setdefault(word.lower(), word)
        counts.append(Counter(w.lower() for w in words if w.lower() not in STOPWORDS))
    documents = Counter(word for count in counts for word in count)
    total = len(texts)
    out = []
    for count in counts:
        scored = sorted(
            count.items(),
            key=lambda item: (-item[1] * math.log((1 + total) / (1 + documents[item[0]])), item[0]),
        )
        out.append([spelled[word] for word, freq in scored[:top] if freq > 1 or total == 1])
    return out
