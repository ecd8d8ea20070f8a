"""Chapter boundaries against authors' chapters nobody here wrote: the Coding Train site's
`timestamps` (CodingTrain/thecodingtrain.com, content/videos/**/index.json) paired with
the Coding Train's Whisper transcripts (CodingTrain/coding-train-transcripts).

    python -m tests.eval.chapters            # the table (make eval-chapters)
    python -m tests.eval.chapters --fit      # fit Params on the training half, then the table

Videos are split by a hash of their ID: even -> training half (what --fit tunes on),
odd -> the measured half. Only the measured half is in the table. Boundary F1 counts a
computed boundary as right when an author's boundary lies within the tolerance (one to
one, nearest first); the opening 0:00 is left out of both sides. Methods, all given the
same number of chapters per video as ours computes:

- ours: `transcripts.chapters.compute` (topic shifts in the window vectors, pauses);
- longest pauses (amagi-listen's method): the longest silences, as far apart as ours;
- evenly spaced;
- scene cuts (Cue's method): not measurable here, transcripts have no pictures.

Titles are judged by the cosine between a computed title and the author's title of the
chapter it matched (within 30 s), beside the same cosine for a title made of the chapter's
first words; ten are printed beside the authors'.

Data: DATA (default /work/data/thecodingtrain: index.json files under content/videos, or
`_collected.jsonl` lines {videoId, title, ts: [[clock, title]]}); transcripts from the git
snapshot TRANSCRIPTS (default /work/.mirror/CodingTrain+coding-train-transcripts/repo) or
the JSON files in /work/shared/data/transcripts/coding-train. Window vectors are cached in
CACHE (default /work/data/chapter-vectors) per embedding model.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import itertools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from video_research.transcripts import chapters as chaptering
from video_research.transcripts import windows
from video_research.transcripts.parsers import Cue

DATA = Path(os.environ.get("CHAPTERS_DATA", "/work/data/thecodingtrain"))
TRANSCRIPTS = Path(
    os.environ.get(
        "CHAPTERS_TRANSCRIPTS", "/work/.mirror/CodingTrain+coding-train-transcripts/repo"
    )
)
SHARED = Path("/work/shared/data/transcripts/coding-train")
CACHE = Path(os.environ.get("CHAPTERS_CACHE", "/work/data/chapter-vectors"))
TOLERANCES = (10.0, 30.0)


def _say(*parts: object) -> None:
    print(*parts, flush=True)


def _clock(value: str) -> float:
    seconds = 0.0
    for part in value.strip().split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


@dataclass
class Video:
    video_id: str
    title: str
    authored: list[tuple[float, str]]
    cues: list[Cue]

    @property
    def held_out(self) -> bool:
        return int(hashlib.sha256(self.video_id.encode()).hexdigest(), 16) % 2 == 1


def _entries() -> dict[str, tuple[str, list[tuple[float, str]]]]:
    found: dict[str, tuple[str, list[tuple[float, str]]]] = {}

    def add(video_id: str, title: str, stamps: list) -> None:
        pairs = []
        for stamp in stamps:
            try:
                clock, label = (stamp["time"], stamp["title"]) if isinstance(stamp, dict) else stamp
                pairs.append((_clock(clock), str(label)))
            except (ValueError, KeyError, TypeError):
                continue
        if video_id and len(pairs) >= 3:
            found[video_id] = (title, sorted(pairs))

    for path in sorted((DATA / "content" / "videos").glob("**/index.json")):
        try:
            data = json.loads(path.read_text())
        except ValueError:
            continue
        add(data.get("videoId") or "", data.get("title") or "", data.get("timestamps") or [])
        for part in data.get("parts") or []:
            add(part.get("videoId") or "", part.get("title") or "", part.get("timestamps") or [])
    collected = DATA / "_collected.jsonl"
    if collected.exists():
        for line in collected.read_text().splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if row.get("videoId") not in found:
                add(row.get("videoId") or "", row.get("title") or "", row.get("ts") or [])
    return found


def _transcript(video_id: str) -> list[Cue] | None:
    text = None
    local = SHARED / f"{video_id}.json"
    if local.exists():
        text = local.read_text()
    elif (TRANSCRIPTS / "HEAD").exists() or (TRANSCRIPTS / ".git").exists():
        done = subprocess.run(
            ["git", "-C", str(TRANSCRIPTS), "show", f"HEAD:transcripts/{video_id}.json"],
            capture_output=True,
            text=True,
        )
        text = done.stdout if done.returncode == 0 else None
    if not text:
        return None
    data = json.loads(text)
    # the shared copies are {segments}; the snapshot keeps Replicate's {output: {segments}}
    segments = data.get("segments") or (data.get("output") or {}).get("segments") or []
    return [
        Cue(float(s["start"]), float(s["end"]), str(s["text"]).strip())
        for s in segments
        if str(s.get("text") or "").strip()
    ]


def load_videos() -> list[Video]:
    videos = []
    for video_id, (title, authored) in sorted(_entries().items()):
        cues = _transcript(video_id)
        if not cues:
            continue
        end = cues[-1].end
        # an edited upload whose chapters run past the transcript is not this transcript's
        if authored[-1][0] > end + 5 or authored[0][0] > 5:
            continue
        videos.append(Video(video_id, title, authored, cues))
    return videos


# ----------------------------------------------------------------------------- vectors


async def window_vectors(
    videos: list[Video], model: str
) -> dict[str, tuple[list[float], np.ndarray]]:
    from video_research import config
    from video_research.knowledge.embedders.embeddings import get_embedder

    settings = config.load_settings({**os.environ, "KNOWLEDGE_EMBEDDING_MODEL": model})
    embedder = None
    out = {}
    folder = CACHE / model
    folder.mkdir(parents=True, exist_ok=True)
    for n, video in enumerate(videos):
        cut = windows.cut(video.cues)
        starts = [w.start for w in cut]
        cached = folder / f"{video.video_id}.npy"
        if cached.exists():
            matrix = np.load(cached)
            if len(matrix) == len(cut):
                out[video.video_id] = (starts, matrix)
                continue
        embedder = embedder or get_embedder(settings)
        texts = [windows.WINDOWS_COLLECTION.vector_text(windows.window_object("x", w)) for w in cut]
        matrix = np.asarray(await embedder.embed(texts, "document"), dtype=np.float32)
        np.save(cached, matrix)
        out[video.video_id] = (starts, matrix)
        print(f"embedded {n + 1}/{len(videos)} {video.video_id}", file=sys.stderr, flush=True)
    return out


# ----------------------------------------------------------------------------- scoring


def matches(predicted: list[float], truth: list[float], tolerance: float) -> int:
    pairs = sorted(
        (abs(p - t), i, j)
        for i, p in enumerate(predicted)
        for j, t in enumerate(truth)
        if abs(p - t) <= tolerance
    )
    used_p, used_t, hits = set(), set(), 0
    for _, i, j in pairs:
        if i not in used_p and j not in used_t:
            used_p.add(i)
            used_t.add(j)
            hits += 1
    return hits


@dataclass
class Tally:
    hits: dict[float, int] = dataclasses.field(default_factory=lambda: dict.fromkeys(TOLERANCES, 0))
    predicted: int = 0
    truth: int = 0

    def add(self, predicted: list[float], truth: list[float]) -> None:
        self.predicted += len(predicted)
        self.truth += len(truth)
        for tol in TOLERANCES:
            self.hits[tol] += matches(predicted, truth, tol)

    def f1(self, tol: float) -> float:
        if not self.predicted or not self.truth:
            return 0.0
        p, r = self.hits[tol] / self.predicted, self.hits[tol] / self.truth
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def boundaries(found: list[chaptering.VideoChapter]) -> list[float]:
    return [c.start for c in found if c.start > 0]


def ours(video: Video, vectors, params: chaptering.Params) -> list[chaptering.VideoChapter]:
    starts, matrix = vectors[video.video_id]
    return chaptering.compute(video.cues, starts, matrix, params=params)


def longest_pauses(video: Video, count: int, spacing: float) -> list[float]:
    gaps = [
        (video.cues[i].start - video.cues[i - 1].end, video.cues[i].start)
        for i in range(1, len(video.cues))
    ]
    candidates = [chaptering.Candidate(at, gap, ("pause",)) for gap, at in gaps]
    return chaptering.pick(candidates, count - 1, video.cues[-1].end, spacing)


def evenly(video: Video, count: int) -> list[float]:
    end = video.cues[-1].end
    return [end * n / count for n in range(1, count)]


def evaluate(videos: list[Video], vectors, params: chaptering.Params) -> dict[str, Tally]:
    tallies = {name: Tally() for name in ("ours", "longest pauses", "evenly spaced")}
    for video in videos:
        truth = [start for start, _ in video.authored if start > 0]
        found = ours(video, vectors, params)
        tallies["ours"].add(boundaries(found), truth)
        count = len(found)
        tallies["longest pauses"].add(longest_pauses(video, count, params.min_seconds), truth)
        tallies["evenly spaced"].add(evenly(video, count), truth)
    return tallies


def fit(videos: list[Video], vectors) -> chaptering.Params:
    """The Params with the best mean of F1 at 10 s and 30 s on `videos` (a grid)."""
    lengths = [
        (v.authored[-1][0] if len(v.authored) > 1 else v.cues[-1].end) / max(1, len(v.authored) - 1)
        for v in videos
    ]
    typical = float(np.median(lengths))
    best, best_score = chaptering.PARAMS, -1.0
    grid = itertools.product(
        (typical * 0.75, typical, typical * 1.25),  # seconds_per_chapter
        (20.0, 40.0),  # min_seconds
        (30.0, 60.0, 90.0),  # context
        (0.0, 0.5, 1.0),  # topic
        (0.0, 0.5, 1.0),  # pause
        (0.0, 10.0, 20.0),  # window_span (sentences now; ~20 s windows once)
    )
    for spc, spacing, context, topic, pause, span in grid:
        if topic == 0 and pause == 0:
            continue
        params = dataclasses.replace(
            chaptering.PARAMS,
            seconds_per_chapter=round(spc, 1),
            min_seconds=spacing,
            context=context,
            topic=topic,
            pause=pause,
            window_span=span,
        )
        tally = evaluate(videos, vectors, params)["ours"]
        score = (tally.f1(10.0) + tally.f1(30.0)) / 2
        if score > best_score:
            best, best_score = params, score
    _say(f"fitted on {len(videos)} videos (mean F1 {best_score:.3f}): {best}")
    return best


# ----------------------------------------------------------------------------- titles


async def judge_titles(videos: list[Video], vectors, params, model: str) -> None:
    from video_research import config
    from video_research.knowledge.embedders.embeddings import get_embedder

    embedder = get_embedder(
        config.load_settings({**os.environ, "KNOWLEDGE_EMBEDDING_MODEL": model})
    )
    rows = []
    for video in videos:
        found = ours(video, vectors, params)
        for chapter in found[1:]:
            near = min(video.authored, key=lambda a: abs(a[0] - chapter.start))
            if abs(near[0] - chapter.start) > 30:
                continue
            words = " ".join(
                c.text for c in video.cues if chapter.start <= c.start < chapter.end
            ).split()[:6]
            rows.append((video.video_id, chapter.start, near[1], chapter.title, " ".join(words)))
    if not rows:
        _say("no matched chapters to judge titles on")
        return
    authors = await embedder.embed([r[2] for r in rows], "document")
    computed = await embedder.embed([r[3] for r in rows], "document")
    first = await embedder.embed([r[4] or "-" for r in rows], "document")
    ours_cos = np.sum(np.asarray(authors) * np.asarray(computed), axis=1)
    first_cos = np.sum(np.asarray(authors) * np.asarray(first), axis=1)
    _say(
        f"\nTitles of {len(rows)} matched chapters (cosine to the author's title, {model}): "
        f"ours {ours_cos.mean():.3f}, the chapter's first six words {first_cos.mean():.3f}"
    )
    _say("\n| video | at | author's title | computed title |\n|---|---|---|---|")
    for video_id, start, author, title, _ in rows[:: max(1, len(rows) // 10)][:10]:
        _say(f"| {video_id} | {int(start) // 60}:{int(start) % 60:02d} | {author} | {title} |")


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.eval.chapters")
    parser.add_argument("--fit", action="store_true", help="fit Params on the training half")
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args(argv)
    videos = load_videos()
    if args.limit:
        videos = videos[: args.limit]
    if not videos:
        _say(f"no videos with authors' chapters and transcripts under {DATA} and {TRANSCRIPTS}")
        return 1
    vectors = await window_vectors(videos, args.model)
    train = [v for v in videos if not v.held_out]
    test = [v for v in videos if v.held_out]
    params = fit(train, vectors) if args.fit else chaptering.PARAMS
    if args.fit:
        chaptering.PARAMS_FILE.write_text(json.dumps(dataclasses.asdict(params), indent=1) + "\n")
        _say(f"fitted parameters written to {chaptering.PARAMS_FILE}")
    chapters_n = sum(len(v.authored) - 1 for v in test)
    _say(
        f"\n## Chapter boundaries: {len(test)} measured videos ({chapters_n} authors' boundaries; "
        f"{len(train)} more videos were the training half), embedder {args.model}\n"
    )
    _say("| method | F1 +-10 s | F1 +-30 s | boundaries |\n|---|---|---|---|")
    for name, tally in evaluate(test, vectors, params).items():
        _say(f"| {name} | {tally.f1(10):.3f} | {tally.f1(30):.3f} | {tally.predicted} |")
    _say("| scene cuts only | n/a | n/a | transcripts have no pictures |")
    await judge_titles(test, vectors, params, args.model)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
