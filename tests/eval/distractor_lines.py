"""The lines distractors are made of, and how they are cut into distractor videos.

A `Pool` is the distinct caption lines of either the eval corpus itself (`sentence_pool`,
the fallback) or a folder of other videos' transcripts (`transcript_pool`, exported by
tests/eval/pool.py); `distractor_batches` turns it into store objects shaped like the
real chunks, with the pool lines each one holds (their vectors are made from those
lines: tests/eval/distractors.py). Kept apart from the store building and measuring so
each reads on its own; a change here changes the distractors, so it bumps
distractors.FORMAT.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.eval.metrics import MOMENT_SECONDS, Query

POOL_MANIFEST = "pool.json"
"""Written by tests/eval/pool.py beside the transcripts it exports; not a transcript."""
BATCH = 5000
"""Distractor objects per insert_many (one transaction each)."""
CHUNKS_PER_VIDEO = 20
SOURCES_PER_VIDEO = 2
MIN_LINE_SECONDS, MAX_LINE_SECONDS = 1.0, 10.0
COPY_RUN = 6
COPY_SHARE = 0.2
COPY_MIN_RUNS = 100
"""A pool transcript holding COPY_SHARE of a corpus video's runs of COPY_RUN words, and
at least COPY_MIN_RUNS of them, is a copy of that video's speech, not a distractor:
another id does not make it another video. Three Coding Train livestreams, from which
corpus tutorials were cut, hold 85-91% of one corpus video each (1,670-2,711 runs); the
next highest share of any pool transcript is 1.1% (phrases a channel repeats). The
minimum keeps a video of a few distinct runs ("you you you you you you") from marking
every transcript that shares one."""


@dataclass(frozen=True)
class Pool:
    """The distinct caption lines distractors are made of."""

    texts: list[str]
    seconds: list[float]
    """How long each line lasted in its source."""
    source: list[int]
    """Index of the source video each line comes from (lines of a video in order)."""
    lines_per_chunk: list[int]
    """Lines per chunk of every real chunk (the shape distractor chunks copy)."""
    videos: int
    languages: tuple[str, ...] = ()
    """Each source video's language; empty: all English (the corpus-lines pool)."""
    folder: str = ""
    """The transcripts folder the pool was read from; empty: the corpus's own lines."""
    copies: tuple[int, ...] = ()
    """Source videos never drawn: copies of a corpus video's speech (`corpus_copies`)."""
    quoted: tuple[int, ...] = ()
    """Lines never drawn: they say a query's words verbatim (`quoted_lines`)."""

    @property
    def key(self) -> str:
        digest = hashlib.sha256()
        for text in self.texts:
            digest.update(text.encode() + b"\n")
        digest.update(json.dumps(self.lines_per_chunk).encode())
        return digest.hexdigest()[:16]

    @property
    def tag(self) -> str:
        """The pool's part of a cached store's folder name."""
        if not self.folder:
            return "corpus"
        tag = f"transcripts-{self.key[:8]}"
        for mark, left_out in (("x", self.copies), ("q", self.quoted)):
            if left_out:
                tag += f"-{mark}{hashlib.sha256(json.dumps(left_out).encode()).hexdigest()[:4]}"
        return tag

    def describe(self) -> str:
        if not self.folder:
            return (
                f"the eval corpus's own caption lines ({len(self.texts):,} distinct lines of "
                f"{self.videos} videos, recombined two videos at a time)"
            )
        languages = sorted(set(self.languages))
        return (
            f"transcripts of other videos in {self.folder} ({self.videos} transcripts, "
            f"{len(self.texts):,} distinct lines, {len(languages)} languages: "
            f"{', '.join(languages)}; each distractor video re-cuts one of them; "
            f"{len(self.copies)} left out as copies of a corpus video's speech; "
            f"{len(self.quoted)} lines left out for saying a query verbatim)"
        )


def sentence_pool(
    transcripts: dict[str, list[tuple[float, str]]],
    lines_per_chunk: list[int],
    queries: Sequence[Query],
) -> Pool:
    """Every distinct caption line of the corpus not within MOMENT_SECONDS of a label."""
    labels: dict[str, list[float]] = {}
    for query in queries:
        labels.setdefault(query.video_id, []).append(query.second)
    texts, seconds, source, seen = [], [], [], set()
    for number, video in enumerate(sorted(transcripts)):
        cues = transcripts[video]
        for at, (start, text) in enumerate(cues):
            text = text.strip()
            if not text or text in seen:
                continue
            if any(abs(start - label) <= MOMENT_SECONDS for label in labels.get(video, ())):
                continue
            following = cues[at + 1][0] if at + 1 < len(cues) else start + 3.0
            seen.add(text)
            texts.append(text)
            seconds.append(min(MAX_LINE_SECONDS, max(MIN_LINE_SECONDS, following - start)))
            source.append(number)
    return Pool(texts, seconds, source, sorted(lines_per_chunk), len(transcripts))


def transcript_pool(folder: Path, lines_per_chunk: list[int]) -> Pool:
    """Every distinct caption line of the transcript files in `folder` (see
    tests/eval/pool.py), read with the project's own parsers, each file one source video.
    None of them is a corpus video, so no line is left out for being near a label."""
    from video_research.transcripts.sources import read_file

    texts, seconds, source, languages, seen = [], [], [], [], set()
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name != POOL_MANIFEST)
    for path in files:
        transcript = read_file(path)
        cues = transcript.cues
        kept = 0
        for at, cue in enumerate(cues):
            text = cue.text.strip()
            if not text or text in seen:
                continue
            following = cues[at + 1].start if at + 1 < len(cues) else cue.start + 3.0
            seen.add(text)
            texts.append(text)
            seconds.append(min(MAX_LINE_SECONDS, max(MIN_LINE_SECONDS, following - cue.start)))
            source.append(len(languages))
            kept += 1
        if kept:  # a file with no new line is not a source video
            languages.append(transcript.language or "en")
    return Pool(
        texts,
        seconds,
        source,
        sorted(lines_per_chunk),
        len(languages),
        tuple(languages),
        str(folder),
    )


def _runs(text: str) -> set[str]:
    words = re.findall(r"\w+", text.lower())
    return {" ".join(words[at : at + COPY_RUN]) for at in range(len(words) - COPY_RUN + 1)}


def corpus_copies(pool: Pool, corpus: dict[str, list[tuple[float, str]]]) -> Pool:
    """`pool` with the sources that copy a corpus video's speech marked (see COPY_SHARE):
    a pool exported by video id keeps a livestream whose edited cut is a corpus video."""
    owners: dict[str, list[int]] = {}
    sizes: list[int] = []
    for number, cues in enumerate(corpus.values()):
        runs = _runs(" ".join(text for _, text in cues))
        sizes.append(len(runs))
        for run in runs:
            owners.setdefault(run, []).append(number)
    by_source: dict[int, list[str]] = {}
    for text, source in zip(pool.texts, pool.source, strict=True):
        by_source.setdefault(source, []).append(text)
    copies = []
    for source, texts in sorted(by_source.items()):
        shared: dict[int, int] = {}
        for run in _runs(" ".join(texts)):
            for video in owners.get(run, ()):
                shared[video] = shared.get(video, 0) + 1
        if any(
            count >= max(COPY_MIN_RUNS, COPY_SHARE * sizes[video])
            for video, count in shared.items()
        ):
            copies.append(source)
    return dataclasses.replace(pool, copies=tuple(copies))


QUOTE_LINES = 3
"""How many consecutive lines of a source a query's words are looked for across (a
sentence a caption splits in two or three)."""
MIN_QUOTE = 4
"""Fewer words than this are a phrase many lines hold, not a sentence someone said."""


def quoted_lines(pool: Pool, queries: Sequence[Query]) -> Pool:
    """`pool` with the lines marked that say a query verbatim: every query's words (the
    keyword index's tokens) as one run, in order, within QUOTE_LINES consecutive lines of
    one source. A distractor saying the sentence a literal query quotes is a second copy
    of the answer, not a distractor: a generic sentence ("I'm just going to not worry
    about that too much") said in another video recurs in ~36 distractor chunks at 1M
    (each pool line is re-cut that often), and no search can rank the labelled one of
    37 copies first. The corpus-lines pool leaves such lines out by the label's time
    (`sentence_pool`); this is the same rule for a pool of other videos."""
    from video_research.knowledge.keyword_tokens import tokens

    line_tokens = [list(tokens(text)) for text in pool.texts]
    wanted = {tuple(words) for q in queries if len(words := list(tokens(q.query))) >= MIN_QUOTE}
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for words in wanted:
        by_first.setdefault(words[0], []).append(words)
    marked: set[int] = set()
    for at in range(len(pool.texts)):
        span, owner = [], []
        for line in range(at, min(at + QUOTE_LINES, len(pool.texts))):
            if pool.source[line] != pool.source[at]:
                break
            span += line_tokens[line]
            owner += [line] * len(line_tokens[line])
        for start, word in enumerate(line_tokens[at]):
            for words in by_first.get(word, ()):
                if tuple(span[start : start + len(words)]) == words:
                    marked.update(owner[start : start + len(words)])
    return dataclasses.replace(pool, quoted=tuple(sorted(marked)))


def distractor_batches(pool: Pool, count: int, seed: int = 24):
    """(objects, line indices per object) in batches of BATCH, deterministic for a seed."""
    import numpy as np

    rng = np.random.default_rng(seed)
    chunks = _recut(pool, count, rng) if pool.folder else _recombined(pool, count, rng)
    objects: list[dict] = []
    members: list[Any] = []
    for video, language, index, clock, chosen in chunks:
        starts = []
        for line in chosen:
            starts.append(round(clock, 2))
            clock += pool.seconds[line]
        objects.append(
            {
                "video_id": f"distractor-{video:07d}",
                "video_title": "",
                "video_url": "",
                "source": "file",
                "language": language,
                "evidence": "speech",
                "text": "\n".join(pool.texts[line] for line in chosen),
                "start_time": starts[0],
                "end_time": round(clock, 2),
                "chunk_index": index,
                "first_cue": index * 100,
                "last_cue": index * 100 + len(chosen) - 1,
                "cue_starts": json.dumps(starts),
                "timestamp_url": "",
            }
        )
        members.append(chosen)
        if len(objects) == BATCH:
            yield objects, members
            objects, members = [], []
    if objects:
        yield objects, members


def distractor_windows(objects: list[dict], members: list[Any]) -> tuple[list[dict], list[Any]]:
    """The sentence windows of a batch of distractor chunks (`distractor_batches`), cut
    over each distractor video's captions as indexing cuts a real video's (`windows.cut`),
    and the pool lines each window holds (its vector is made from them as a chunk's is).
    A video split between two batches is cut in two parts: a window fewer at the seam."""
    import itertools

    from video_research.transcripts.parsers import Cue
    from video_research.transcripts.windows import cut, window_object

    windows: list[dict] = []
    lines: list[Any] = []
    pairs = zip(objects, members, strict=True)
    for video_id, chunks in itertools.groupby(pairs, key=lambda pair: pair[0]["video_id"]):
        cues: list[Cue] = []
        cue_ids: list[int] = []
        chosen: list[Any] = []
        for chunk, own in chunks:
            texts = chunk["text"].split("\n")
            starts = json.loads(chunk["cue_starts"])
            cues += [Cue(at, at, text) for at, text in zip(starts, texts, strict=True)]
            cue_ids += [chunk["first_cue"] + k for k in range(len(texts))]
            chosen += list(own)
        seen: set[tuple[int, float]] = set()
        for window in cut(cues):
            if (window.first_cue, round(window.start, 2)) in seen:
                continue  # a second sentence of a line: lines here last no time, so it
                # would share the first's start and id (indexing reads real cue lengths)
            seen.add((window.first_cue, round(window.start, 2)))
            last = window.first_cue
            while last + 1 < len(cues) and cues[last + 1].start <= window.end:
                last += 1
            own_cue = dataclasses.replace(window, first_cue=cue_ids[window.first_cue])
            windows.append(window_object(video_id, own_cue))
            lines.append(chosen[window.first_cue : last + 1])
    return windows, lines


def _recombined(pool: Pool, count: int, rng: Any):
    """The corpus-lines pool: each distractor video draws its lines from two corpus
    videos, in random order. Yields (video, language, chunk index, start second, lines)."""
    import numpy as np

    source = np.asarray(pool.source)
    by_video = [np.flatnonzero(source == v) for v in range(pool.videos)]
    by_video = [lines for lines in by_video if len(lines)]
    shapes = np.asarray(pool.lines_per_chunk)
    made = video = 0
    while made < count:
        picks = rng.choice(len(by_video), SOURCES_PER_VIDEO, replace=False)
        lines = np.concatenate([by_video[p] for p in picks])
        clock = float(rng.integers(0, 60))
        for index in range(min(CHUNKS_PER_VIDEO, count - made)):
            chosen = rng.choice(lines, min(len(lines), int(rng.choice(shapes))), replace=False)
            yield video, "en", index, clock, chosen
            clock += float(sum(pool.seconds[line] for line in chosen))
            made += 1
        video += 1


def _recut(pool: Pool, count: int, rng: Any):
    """A transcripts pool: each distractor video is one source transcript (picked in
    proportion to its lines) cut again into consecutive chunks from a random line on,
    with chunk sizes drawn from the real chunks' and no more chunks than the source
    holds lines for, so its chunks read like a real video's."""
    import numpy as np

    source = np.asarray(pool.source).copy()
    source[list(pool.quoted)] = -1  # never drawn
    by_video = [np.flatnonzero(source == v) for v in range(pool.videos)]
    weights = np.asarray([len(lines) for lines in by_video], dtype=np.float64)
    weights[list(pool.copies)] = 0.0
    weights /= weights.sum()
    shapes = np.asarray(pool.lines_per_chunk)
    mean_shape = max(1.0, float(shapes.mean()))
    made = video = 0
    while made < count:
        pick = int(rng.choice(len(by_video), p=weights))
        lines = by_video[pick]
        at = int(rng.integers(0, len(lines)))
        clock = float(rng.integers(0, 60))
        room = max(1, int(len(lines) / mean_shape))
        for index in range(min(CHUNKS_PER_VIDEO, room, count - made)):
            size = min(len(lines), int(rng.choice(shapes)))
            chosen = lines[(at + np.arange(size)) % len(lines)]
            at += size
            yield video, pool.languages[pick], index, clock, chosen
            clock += float(sum(pool.seconds[line] for line in chosen))
            made += 1
        video += 1
