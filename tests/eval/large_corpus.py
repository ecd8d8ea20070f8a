"""The large eval corpus: a few hundred real videos of several channels and languages.

`make eval-corpus` (python -m tests.eval.large_corpus) reads three public transcript
collections from local snapshots (git folders, read at HEAD, or checkouts) and writes,
into VIDEO_RESEARCH_EVAL_CORPUS (default ~/.cache/video-research/eval-corpus):

- `transcripts/<video id>.srt|.json`: each video's transcript, cut at its first
  CAP_SECONDS (indexing time on 2 cores);
- `queries.jsonl`: queries made from those transcripts, each with its video and second;
- `corpus.json`: what was taken (videos per channel and language, queries per group);
- with `--codingtrain-site DIR`, `chapter_queries.jsonl`: the Coding Train authors' own
  chapter titles as queries, each answered by its chapter's span
  (tests/eval/codingtrain_chapters.py), plus the transcripts of chapter videos the sample
  lacks, listed in corpus.json under `chapter_only_videos`.

`make eval EVAL="--corpus large"` then indexes that folder and asks those queries.

Sources (none states a licence for the transcript text, so the export stays on this
machine and never enters the repository):

- github.com/3b1b/captions: 3Blue1Brown's English captions (`english/captions.srt`), the
  sentence timings beside them, and the per-sentence translations of each language
  (`<language>/sentence_translations.json`: the English sentence, its start and its
  translation), which give cross-language queries whose answer is a known English moment;
- github.com/CodingTrain/coding-train-transcripts: the Coding Train's Whisper segments;
- github.com/Ryder-MHumble/Youtube-KOL-Transcripts: podcast transcripts of several
  channels (English and Chinese), one `[HH:MM:SS]` line about every minute.

Queries, in the styles of the hand-written sets (tests/eval/queries.jsonl, notes_queries):

- literal: the first words of one caption sentence (a viewer who remembers a phrase);
- notes: the content words of a window of three sentences, stopwords dropped (what
  someone jots down while watching);
- cross-language: a 3Blue1Brown sentence's translation (Chinese, Spanish, ...) whose
  answer is the English sentence's start;
- other-language: words from a Chinese podcast's own line (query and passage Chinese).

Paraphrases need a writer (no model this project has offline writes them), so they are
not generated: tests/eval/large_paraphrases.jsonl holds 93 written by hand (`paraphrases`),
39 English and 54 Chinese claims in the manner of the hand-written sets, each of one
moment of a corpus video, avoiding its content words (the Chinese ones restate the
passage in other words, copying no run of more than four characters but a name),
labelled at the paraphrased sentence's estimated start. The Chinese claims P060-P093,
two more in each Chinese video, were written from the transcripts alone, before any
search had been run on them. They join the generated queries whenever the corpus is
evaluated; only the video ids and the seconds refer to the transcripts, the sentences
are the writer's own.

Podcast lines carry one time a minute: a query taken from the middle of a line is
labelled at the line's start plus its share of the line's words (or characters), so the
label is an estimate within about ten seconds at the usual rate of speech.

Split: a video whose id hashes (SHA-256) to 0 modulo 3 is HELD-OUT; every query of it
is reported apart and no tuning may look at it (the `split` field of each query).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tests.eval.metrics import Query, content_words
from tests.eval.pool import LANGUAGES, Source, _video_id

CAP_SECONDS = 1800.0
"""Each transcript is cut here: 360 videos of up to three hours would be ~60k chunks."""
CODING_TRAIN_VIDEOS = 150
"""A seeded sample of the Coding Train's ~420 transcripts (the channel would otherwise
outweigh the others)."""
SEED = 39
CROSS_LANGUAGES = ("chinese", "spanish", "french", "german", "japanese", "russian")
"""Translations that become cross-language queries (Chinese first: the eval's other
query language); one language per query, drawn per video."""
MIN_WORDS = 8
KOL_MIN_LINES = 10


def corpus_dir() -> Path:
    found = os.environ.get("VIDEO_RESEARCH_EVAL_CORPUS")
    return Path(found) if found else Path.home() / ".cache" / "video-research" / "eval-corpus"


def held_out(video_id: str) -> bool:
    return int(hashlib.sha256(video_id.encode()).hexdigest(), 16) % 3 == 0


@dataclass(frozen=True)
class Sentence:
    start: float
    text: str


@dataclass
class Video:
    video_id: str
    channel: str
    language: str
    extension: str
    body: bytes
    sentences: list[Sentence]
    """Query sources in the transcript's language, with their start second."""
    translations: dict[str, list[Sentence]]
    """Language folder -> translated sentences at the English sentence's start."""


# ----------------------------------------------------------------------- the sources


def _srt_until(body: str, cap: float) -> str:
    """The cues of an SRT that start before `cap` seconds."""
    kept = []
    for block in re.split(r"\n\s*\n", body.replace("\r\n", "\n").strip()):
        at = re.search(r"(\d+):(\d\d):(\d\d)[,.](\d+) -->", block)
        if at is None:
            continue
        h, m, s, _ = (int(x) for x in at.groups())
        if h * 3600 + m * 60 + s < cap:
            kept.append(block)
    return "\n\n".join(kept) + "\n"


def captions_videos(source: Source) -> list[Video]:
    """3Blue1Brown videos with English captions and sentence timings."""
    names = source.names()
    urls = {n.rsplit("/", 1)[0]: n for n in names if n.endswith("/video_url.txt")}
    have = set(names)
    folders = sorted(
        f
        for f in urls
        if f"{f}/english/captions.srt" in have and f"{f}/english/sentence_timings.json" in have
    )
    wanted = [urls[f] for f in folders]
    for folder in folders:
        wanted += [f"{folder}/english/captions.srt", f"{folder}/english/sentence_timings.json"]
        wanted += [
            f"{folder}/{lang}/sentence_translations.json"
            for lang in CROSS_LANGUAGES
            if f"{folder}/{lang}/sentence_translations.json" in have
        ]
    files = source.read(wanted)
    videos = []
    for folder in folders:
        video_id = _video_id(files.get(urls[folder], b""))
        if video_id is None:
            continue
        timings = json.loads(files[f"{folder}/english/sentence_timings.json"])
        sentences = [
            Sentence(float(start), str(text))
            for text, start, *_ in timings
            if float(start) < CAP_SECONDS
        ]
        translations = {}
        for lang in CROSS_LANGUAGES:
            raw = files.get(f"{folder}/{lang}/sentence_translations.json")
            if raw is None:
                continue
            try:
                items = json.loads(raw)
            except ValueError:
                continue
            translations[lang] = [
                Sentence(float(item["start"]), str(item["translatedText"]).strip())
                for item in items
                if isinstance(item, dict)
                and item.get("translatedText")
                and item.get("start") is not None
                and float(item["start"]) < CAP_SECONDS
            ]
        body = _srt_until(
            files[f"{folder}/english/captions.srt"].decode("utf-8", "replace"), CAP_SECONDS
        )
        videos.append(
            Video(video_id, "3Blue1Brown", "en", "srt", body.encode(), sentences, translations)
        )
    return videos


def coding_train_videos(source: Source) -> list[Video]:
    """A seeded sample of the Coding Train's English Whisper transcripts."""
    names = sorted(n for n in source.names() if re.fullmatch(r"transcripts/[^/]+\.json", n))
    videos = []
    for name, raw in sorted(source.read(names).items()):
        kept = _coding_train_segments(raw)
        if kept is None or len(kept) < 40:
            continue
        video_id = Path(name).stem
        videos.append(_json_video(video_id, "The Coding Train", "en", kept))
    random.Random(SEED).shuffle(videos)
    return sorted(videos[:CODING_TRAIN_VIDEOS], key=lambda v: v.video_id)


def _coding_train_segments(raw: bytes) -> list[dict] | None:
    """The English Whisper segments of one Coding Train transcript before CAP_SECONDS."""
    try:
        output = json.loads(raw)["output"]
        segments = output["segments"]
    except (ValueError, KeyError, TypeError):
        return None
    if str(output.get("detected_language") or "english") != "english":
        return None
    return [
        {"start": float(s["start"]), "end": float(s["end"]), "text": s["text"].strip()}
        for s in segments
        if isinstance(s, dict)
        and str(s.get("text", "")).strip()
        and float(s["start"]) < CAP_SECONDS
    ]


def _json_video(video_id: str, channel: str, language: str, segments: list[dict]) -> Video:
    body = json.dumps(
        {"video_id": video_id, "channel": channel, "language": language, "segments": segments},
        ensure_ascii=False,
    ).encode()
    sentences = [Sentence(s["start"], s["text"]) for s in segments]
    return Video(video_id, channel, language, "json", body, sentences, {})


_LINE = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\] (.+)$", re.M)


def kol_videos(source: Source) -> list[Video]:
    """Podcast transcripts with a video id and timed lines, cut at CAP_SECONDS."""
    names = sorted(n for n in source.names() if n.startswith("transcripts/") and n.endswith(".md"))
    videos, seen = [], set()
    for name, raw in sorted(source.read(names).items()):
        text = raw.decode("utf-8", "replace")
        found = re.search(r"^video_id: *['\"]?([A-Za-z0-9_-]{11})", text, re.M) or re.search(
            r"watch\?v=([A-Za-z0-9_-]{11})", text
        )
        lines = _LINE.findall(text)
        if found is None or len(lines) < KOL_MIN_LINES or found.group(1) in seen:
            continue
        seen.add(found.group(1))
        channel = re.search(r"^account_name: *(.+)$", text, re.M)
        stated = re.search(r"^language: *(\w+)", text, re.M)
        segments = []
        for h, m, s, line in lines:
            start = int(h) * 3600 + int(m) * 60 + int(s)
            if start >= CAP_SECONDS:
                break
            line = line.replace("&gt;&gt;", "").replace("&gt;", ">").replace("&amp;", "&")
            segments.append({"start": float(start), "text": " ".join(line.split())})
        for here, after in zip(segments, [*segments[1:], None], strict=True):
            here["end"] = after["start"] if after else here["start"] + 60.0
        language = stated.group(1) if stated else "en"
        if language not in ("en", "zh"):
            continue
        owner = channel.group(1).strip().strip("'\"") if channel else name.split("/")[1]
        video = _json_video(found.group(1), owner, language, segments)
        video.sentences = _line_parts(segments, language)
        videos.append(video)
    return videos


def _line_parts(segments: list[dict], language: str) -> list[Sentence]:
    """Query sources inside minute-long lines: a run of words (English) or of phrases
    (Chinese, which these transcripts space by phrase), each at its estimated second."""
    parts = []
    for segment in segments:
        pieces = segment["text"].split()
        duration = segment["end"] - segment["start"]
        width = 14 if language == "en" else 4
        total = sum(len(p) for p in pieces) or 1
        for at in range(0, len(pieces) - width, width):
            run = pieces[at : at + width]
            offset = sum(len(p) for p in pieces[:at]) / total
            parts.append(Sentence(segment["start"] + offset * duration, " ".join(run)))
    return parts


# ----------------------------------------------------------------------- the queries


def _long_enough(text: str, language: str) -> bool:
    if language in ("zh", "chinese", "japanese"):
        return len(re.sub(r"\s", "", text)) >= 14
    return len(text.split()) >= MIN_WORDS


def make_queries(video: Video, rng: random.Random) -> list[dict]:
    """Two literal queries, one notes query and (3Blue1Brown) two cross-language ones."""
    made: list[dict] = []
    usable = [
        i
        for i, s in enumerate(video.sentences)
        if s.start >= 20 and _long_enough(s.text, video.language)
    ]
    if len(usable) < 4:
        return made
    split = "held-out" if held_out(video.video_id) else "tune"

    def add(kind: str, text: str, second: float, language: str) -> None:
        made.append(
            {
                "id": f"L{video.video_id}-{len(made)}",
                "query": text,
                "video_id": video.video_id,
                "second": round(second, 1),
                "kind": kind,
                "query_language": language,
                "passage_language": video.language,
                "split": split,
            }
        )

    for i in rng.sample(usable, 2):
        sentence = video.sentences[i]
        words = sentence.text.split()
        text = sentence.text if video.language == "zh" else " ".join(words[:18])
        add("literal", text, sentence.start, video.language)
    i = rng.choice(usable[:-2])
    window = video.sentences[i : i + 3]
    if window[-1].start - window[0].start <= 25:
        if video.language == "zh":
            add("notes", " ".join(s.text for s in window), window[0].start, "zh")
        else:
            words = []
            for s in window:
                words += [w for w in re.findall(r"[\w'-]+", s.text) if content_words(w)]
            unique = list(dict.fromkeys(words))[:16]
            if len(unique) >= 5:
                add("notes", " ".join(unique), window[0].start, video.language)
    languages = sorted(video.translations)
    chosen = ["chinese"] if "chinese" in languages else []
    others = [lang for lang in languages if lang != "chinese"]
    if others:
        chosen.append(rng.choice(others))
    for language in chosen:
        lines = [
            s
            for s in video.translations[language]
            if s.start >= 20 and _long_enough(s.text, language)
        ]
        if lines:
            line = rng.choice(lines)
            add("foreign", line.text, line.start, LANGUAGES[language])
    return made


# ----------------------------------------------------------------------- the export


def export(videos: list[Video], out: Path, sources: dict) -> dict:
    folder = out / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    queries = []
    for video in videos:
        (folder / f"{video.video_id}.{video.extension}").write_bytes(video.body)
        queries += make_queries(video, random.Random(f"{SEED}-{video.video_id}"))
    with (out / "queries.jsonl").open("w") as file:
        for query in queries:
            file.write(json.dumps(query, ensure_ascii=False) + "\n")
    groups = Counter(
        (q["kind"] if q["query_language"] == q["passage_language"] else "cross-language")
        + f" {q['query_language']}, {q['split']}"
        for q in queries
    )
    manifest = {
        "videos": len(videos),
        "channels": dict(Counter(v.channel for v in videos).most_common()),
        "languages": dict(Counter(v.language for v in videos)),
        "held_out_videos": sum(held_out(v.video_id) for v in videos),
        "queries": len(queries),
        "query_groups": dict(sorted(groups.items())),
        "cap_seconds": CAP_SECONDS,
        "sources": sources,
    }
    (out / "corpus.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False))
    return manifest


def export_chapters(site: Path, source: Source, out: Path, manifest: dict) -> dict:
    """The Coding Train authors' chapters (tests/eval/codingtrain_chapters.py) as
    `chapter_queries.jsonl`, with the transcripts of chapter videos the corpus lacks copied
    into it (cut at CAP_SECONDS like the others) and listed in corpus.json."""
    from tests.eval import codingtrain_chapters as chapters

    pages = chapters.read_site(site)
    have = set(source.names())
    wanted = [f"transcripts/{p.video_id}.json" for p in pages]
    files = source.read([n for n in wanted if n in have])
    folder = out / "transcripts"
    in_corpus = {path.stem for path in folder.iterdir()}
    segments = {}
    for name, raw in files.items():
        kept = _coding_train_segments(raw)
        if kept:
            segments[Path(name).stem] = kept
    ends = {vid: max(s["end"] for s in segs) for vid, segs in segments.items()}
    videos = chapters.usable(pages, ends, cap=CAP_SECONDS)
    added = []
    for video in videos:
        if video.video_id not in in_corpus:
            body = _json_video(video.video_id, "The Coding Train", "en", segments[video.video_id])
            (folder / f"{video.video_id}.json").write_bytes(body.body)
            added.append(video.video_id)
    made = list(chapters.queries(videos))
    with (out / "chapter_queries.jsonl").open("w") as file:
        for query in made:
            file.write(json.dumps(query, ensure_ascii=False) + "\n")
    manifest = {
        **manifest,
        "chapter_videos": len(videos),
        "chapter_boundaries": sum(len(v.boundaries) for v in videos),
        "chapter_queries": len(made),
        "chapter_queries_held_out": sum(q["split"] == "held-out" for q in made),
        "chapter_only_videos": sorted(added),
    }
    (out / "corpus.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False))
    return manifest


def _head(source: Source) -> str:
    if not source.git:
        return "(a plain folder)"
    import subprocess

    return subprocess.run(
        ["git", "-C", str(source.root), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.eval.large_corpus", description=__doc__)
    parser.add_argument("--captions", type=Path, required=True, help="3b1b/captions")
    parser.add_argument("--coding-train", type=Path, required=True)
    parser.add_argument("--kol", type=Path, required=True, help="Youtube-KOL-Transcripts")
    parser.add_argument(
        "--out", type=Path, default=None, help="default: $VIDEO_RESEARCH_EVAL_CORPUS"
    )
    parser.add_argument(
        "--codingtrain-site",
        type=Path,
        default=None,
        help="a local copy of thecodingtrain.com (the folder holding content/videos): "
        "exports the authors' chapters as chapter_queries.jsonl",
    )
    args = parser.parse_args(argv)
    sources = {
        "3b1b/captions": Source(args.captions),
        "CodingTrain/coding-train-transcripts": Source(args.coding_train),
        "Ryder-MHumble/Youtube-KOL-Transcripts": Source(args.kol),
    }
    videos = (
        captions_videos(sources["3b1b/captions"])
        + coding_train_videos(sources["CodingTrain/coding-train-transcripts"])
        + kol_videos(sources["Ryder-MHumble/Youtube-KOL-Transcripts"])
    )
    unique = list({v.video_id: v for v in videos}.values())
    out = args.out or corpus_dir()
    manifest = export(unique, out, {name: _head(s) for name, s in sources.items()})
    if args.codingtrain_site is not None:
        manifest = export_chapters(
            args.codingtrain_site, sources["CodingTrain/coding-train-transcripts"], out, manifest
        )
    print(
        json.dumps(
            {k: v for k, v in manifest.items() if k != "sources"}, indent=1, ensure_ascii=False
        )
    )
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


# ----------------------------------------------------------------------- the report


PARAPHRASES = Path(__file__).with_name("large_paraphrases.jsonl")


def paraphrases(root: Path) -> list[Query]:
    """The hand-written paraphrases (see the module doc) of the videos the corpus at `root`
    holds, each in the part its video is in (`held_out`)."""
    videos = {path.stem for path in (root / "transcripts").iterdir()}
    found = []
    for line in PARAPHRASES.read_text(encoding="utf-8").splitlines():
        if line.strip():
            fields = json.loads(line)
            if fields["video_id"] in videos:
                split = "held-out" if held_out(fields["video_id"]) else "tune"
                found.append(Query(**fields, split=split))
    return found


def is_corpus(transcripts: Path) -> bool:
    """Whether `transcripts` is the transcripts folder of an export of this module."""
    return (transcripts.parent / "corpus.json").is_file()


def group(query) -> str:
    """The large corpus's query groups: style and language, Chinese apart from the other
    languages of the cross-language queries (its own target)."""
    if query.query_language != query.passage_language:
        return "zh -> en" if query.query_language == "zh" else "other languages -> en"
    return f"{query.kind} {query.query_language}"


def query_sets(queries: list) -> dict:
    """The tuning part and the HELD-OUT part (by video), and each group in the held-out
    part, the sets the verdict "default >= both single modes" is checked on."""
    sets = {
        "large corpus, tuning part": lambda q: q.split != "held-out",
        "large corpus, HELD-OUT part (never tuned on)": lambda q: q.split == "held-out",
    }
    for name in sorted({group(q) for q in queries}):
        sets[f"HELD-OUT {name}"] = lambda q, name=name: q.split == "held-out" and group(q) == name
    return sets


def scale_sets(queries: list) -> dict:
    """The sets of the distractor runs: all queries, then the tuning part and the HELD-OUT
    part, each whole and per group."""
    sets = {"all": lambda q: True}
    for part, label in (("tune", "tuning"), ("held-out", "HELD-OUT")):
        sets[f"{label}, all"] = lambda q, part=part: q.split == part
        for name in sorted({group(q) for q in queries}):
            sets[f"{label}, {name}"] = lambda q, part=part, name=name: (
                q.split == part and group(q) == name
            )
    return sets
