"""The distractor pool: real transcripts of OTHER videos, for the eval at scale.

`make eval-pool` (python -m tests.eval.pool) exports a language-balanced sample of two
public transcript collections into a folder of transcript files that
`make eval EVAL="--distractors 100000,1000000 --distractor-pool DIR"` reads with the
project's own parsers (tests/eval/distractors.py):

- 3Blue1Brown's own captions (github.com/3b1b/captions: `<year>/<video>/<language>/*.srt`
  beside `<year>/<video>/video_url.txt`), in ~40 languages;
- The Coding Train's Whisper transcripts (github.com/CodingTrain/coding-train-transcripts:
  `transcripts/<VIDEO_ID>.json`, Replicate predictions), English.

Why: a pool made of the eval corpus's own caption lines makes every distractor a
same-topic near-copy of some lecture the queries are about (each line recurring about
a thousand times at 1M chunks): far from a real store, where most chunks are about
other things and only some share a topic. Transcripts of other videos of the same
channels keep the style and part of the vocabulary without holding any answer.

Exclusion: every language version of every video of the eval corpus is left out (a
translation of the answer is a copy of the answer, not a distractor). Corpus videos are
known by their YouTube id: the names of `3blue1brown/*.srt`, `coding-train/*.json` and
`*.vtt` under the shared transcripts folder, and of tests/data/transcripts/formats; a
captions folder is matched by the id in its `video_url.txt`, and a folder without one is
left out (it cannot be shown not to be a corpus video). `--exclude-corpus DIR` (or
`large`: the export of tests/eval/large_corpus.py) leaves out the videos of another
corpus as well, by the names of its `transcripts/` files: the large corpus holds 149
3Blue1Brown and 150 Coding Train videos that are in these sources too. The eval checks
again before it draws (distractors.make_pool): a pool holding a video of the corpus it
runs on is refused. (The large corpus's third source, the KOL podcasts, adds nothing
here: every one of its episodes with timed lines is in that corpus.)

The texts state no licence: the exported folder is for local runs only and lives in the
eval cache folder, never in the repository. Sources may be git folders with or without
a work tree (read at HEAD through `git cat-file`) or plain folders.

Sample: LINES caption lines in all (embedding each distinct line once for the
approximate distractor vectors takes a few minutes on 2 cores), SHARES of them English
and Chinese (the languages of the eval's queries), the rest split evenly over the other
languages that have at least MIN_VIDEOS videos; within a language, videos in a seeded
random order, 3Blue1Brown's before the Coding Train's (same-channel math lectures are
the hardest distractors for the corpus's), translations preferring videos no other
language took yet.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

LINES = 400_000
SHARES = {"en": 0.55, "zh": 0.15}
MIN_VIDEOS = 100
SEED = 24
LANGUAGES = {
    "english": "en", "chinese": "zh", "spanish": "es", "portuguese": "pt", "french": "fr",
    "korean": "ko", "german": "de", "russian": "ru", "arabic": "ar", "turkish": "tr",
    "italian": "it", "japanese": "ja", "vietnamese": "vi", "hebrew": "he", "hindi": "hi",
    "persian": "fa", "thai": "th", "indonesian": "id", "hungarian": "hu", "tamil": "ta",
    "telugu": "te", "marathi": "mr", "ukrainian": "uk", "urdu": "ur", "bengali": "bn",
    "polish": "pl", "czech": "cs", "greek": "el", "dutch": "nl", "bulgarian": "bg",
}  # fmt: skip
"""3b1b/captions' language folders -> the codes the store records."""
CAPTION_FILES = ("captions.srt", "community.srt", "auto_generated.srt")
"""Which caption file of a language folder to take, best first (a `*_community.srt`
regional variant comes after `community.srt`)."""


def _video_id(url_file: bytes) -> str | None:
    """The video of a captions folder's `video_url.txt` (the server's own URL parser)."""
    from video_research.support.youtube_urls import YouTubeUrlError, parse_video_id

    try:
        return parse_video_id(url_file.decode("utf-8", "replace").strip())
    except YouTubeUrlError:
        return None


@dataclass(frozen=True)
class Video:
    """One transcript that may go into the pool."""

    video_id: str
    language: str
    lines: int
    extension: str
    body: bytes


class Source:
    """The files of a collection: a git folder (at HEAD) or a plain folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        probe = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--git-dir"], capture_output=True, text=True
        )
        self.git = probe.returncode == 0

    def names(self) -> list[str]:
        if self.git:
            listing = subprocess.run(
                ["git", "-C", str(self.root), "ls-tree", "-r", "--name-only", "-z", "HEAD"],
                capture_output=True,
                check=True,
            )
            return [n.decode() for n in listing.stdout.split(b"\0") if n]
        return [str(p.relative_to(self.root)) for p in self.root.rglob("*") if p.is_file()]

    def read(self, names: list[str]) -> dict[str, bytes]:
        if not self.git:
            return {name: (self.root / name).read_bytes() for name in names}
        batch = subprocess.run(
            ["git", "-C", str(self.root), "cat-file", "--batch"],
            input="".join(f"HEAD:{name}\n" for name in names).encode(),
            capture_output=True,
            check=True,
        ).stdout
        found, at = {}, 0
        for name in names:
            end = batch.index(b"\n", at)
            header = batch[at:end].split()
            if header[-1] == b"missing":
                at = end + 1
                continue
            size = int(header[2])
            found[name] = batch[end + 1 : end + 1 + size]
            at = end + 1 + size + 1
        return found


def corpus_ids(shared: Path, formats: Path) -> set[str]:
    """YouTube ids (and file-name ids) of every video of the eval corpus."""
    ids = {p.stem for p in shared.glob("3blue1brown/*.srt")}
    ids |= {p.stem for p in shared.glob("coding-train/*.json")}
    ids |= {p.stem for p in shared.glob("*.vtt")}
    for path in formats.iterdir():
        ids.add(path.stem.split(".")[0])
        named = re.search(r"\[([A-Za-z0-9_-]{11})\]", path.name)
        if named:
            ids.add(named.group(1))
    return ids


def exported_ids(corpus: Path) -> set[str]:
    """The videos of an exported eval corpus (tests/eval/large_corpus.py): the names of
    its `transcripts/` files, `<video id>.<extension>`."""
    folder = corpus / "transcripts"
    if not folder.is_dir():
        raise SystemExit(f"no eval corpus at {corpus}: run `make eval-corpus` first")
    return {path.name.split(".")[0] for path in folder.iterdir() if path.is_file()}


def pool_ids(folder: Path) -> set[str]:
    """The videos of an exported pool: its files are `<video id>.<language>.<extension>`."""
    return {path.name.split(".")[0] for path in folder.iterdir() if path.name != "pool.json"}


def captions_videos(source: Source, excluded: set[str]) -> tuple[list[Video], list[str]]:
    """Every language version of every 3Blue1Brown video not in the corpus; and the
    folders left out (corpus videos, and folders without a video_url.txt)."""
    names = source.names()
    urls = [n for n in names if n.endswith("/video_url.txt")]
    ids = {
        n.rsplit("/", 1)[0]: video_id
        for n, text in source.read(urls).items()
        if (video_id := _video_id(text))
    }
    by_folder: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name in names:
        parts = name.split("/")
        if name.endswith(".srt") and len(parts) >= 3 and "old" not in parts[-1]:
            by_folder[("/".join(parts[:-2]), parts[-2])].append(name)
    left_out = sorted(
        {folder for folder, _ in by_folder if ids.get(folder, "") in excluded or folder not in ids}
    )
    chosen = []
    for (folder, language), files in sorted(by_folder.items()):
        if folder in left_out or language not in LANGUAGES:
            continue
        files.sort(key=lambda n: _rank(n.rsplit("/", 1)[1]))
        chosen.append((folder, language, files[0]))
    bodies = source.read([name for _, _, name in chosen])
    videos = []
    for folder, language, name in chosen:
        body = bodies.get(name, b"")
        lines = body.count(b" --> ")
        if lines:
            videos.append(Video(ids[folder], LANGUAGES[language], lines, "srt", body))
    return videos, left_out


def _rank(file_name: str) -> int:
    if file_name in CAPTION_FILES:
        return CAPTION_FILES.index(file_name)
    return len(CAPTION_FILES) - 1 if file_name.endswith("_community.srt") else 99


def coding_train_videos(source: Source, excluded: set[str]) -> tuple[list[Video], list[str]]:
    """Each finished Whisper transcript not in the corpus, as the corpus's own JSON shape
    (video_id, segments of start/end/text) so the same parser reads both."""
    names = [n for n in source.names() if re.fullmatch(r"transcripts/[^/]+\.json", n)]
    left_out = sorted(n for n in names if Path(n).stem in excluded)
    videos = []
    for name, raw in source.read([n for n in names if n not in left_out]).items():
        try:
            data = json.loads(raw)
            segments = data["output"]["segments"]
            language = str(data["output"].get("detected_language") or "english")
        except (ValueError, KeyError, TypeError):
            continue
        kept = [
            {"start": s["start"], "end": s["end"], "text": s["text"].strip()}
            for s in segments
            if isinstance(s, dict) and str(s.get("text", "")).strip()
        ]
        if not kept or language not in LANGUAGES:
            continue
        video_id = Path(name).stem
        body = json.dumps(
            {"video_id": video_id, "channel": "The Coding Train", "segments": kept},
            ensure_ascii=False,
        ).encode()
        videos.append(Video(video_id, LANGUAGES[language], len(kept), "json", body))
    return videos, left_out


def sample(videos: list[Video], lines: int = LINES) -> list[Video]:
    """The language-balanced sample described in the module docstring."""
    by_language: dict[str, list[Video]] = defaultdict(list)
    for video in videos:
        by_language[video.language].append(video)
    others = [
        lang
        for lang, group in by_language.items()
        if lang not in SHARES and len(group) >= MIN_VIDEOS
    ]
    quota = {lang: int(lines * share) for lang, share in SHARES.items()}
    rest = lines - sum(quota.values())
    quota |= {lang: rest // max(1, len(others)) for lang in others}
    rng = random.Random(SEED)
    taken: Counter[str] = Counter()
    chosen = []
    for language in sorted(quota, key=lambda lang: (lang not in SHARES, lang)):
        group = by_language.get(language, [])
        rng.shuffle(group)
        # Stable sort: random within equal keys; 3Blue1Brown's own math lectures (the
        # hardest distractors for the corpus's lectures) before the Coding Train's.
        group.sort(key=lambda v: (taken[v.video_id], v.extension != "srt"))
        total = 0
        for video in group:
            if total >= quota[language]:
                break
            chosen.append(video)
            taken[video.video_id] += 1
            total += video.lines
    return chosen


def export(chosen: list[Video], out: Path, manifest: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.*"):
        old.unlink()
    for video in chosen:
        (out / f"{video.video_id}.{video.language}.{video.extension}").write_bytes(video.body)
    (out / "pool.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False))


def main(argv: list[str]) -> int:
    from tests.eval.distractors import cache_dir
    from tests.helpers import DATA, shared_data

    parser = argparse.ArgumentParser(prog="python -m tests.eval.pool", description=__doc__)
    parser.add_argument("--captions", type=Path, required=True, help="3b1b/captions")
    parser.add_argument("--coding-train", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=None, help="default: <eval cache>/pool")
    parser.add_argument("--lines", type=int, default=LINES)
    parser.add_argument(
        "--exclude-corpus",
        action="append",
        default=[],
        metavar="DIR",
        help="also leave out this exported corpus's videos (`large`: $VIDEO_RESEARCH_EVAL_CORPUS)",
    )
    args = parser.parse_args(argv)
    from tests.eval.large_corpus import corpus_dir

    shared = shared_data()
    corpora = [corpus_dir() if c == "large" else Path(c) for c in args.exclude_corpus]
    excluded: set[str] = set()
    if shared is not None and (shared / "transcripts").is_dir():
        excluded = corpus_ids(shared / "transcripts", DATA / "transcripts" / "formats")
    elif not corpora:
        print("the eval corpus (../shared/data/transcripts) is needed to exclude its videos")
        return 2
    else:
        # Without the 39 videos here, the pool is for the named corpora only (the eval
        # refuses it for a corpus whose videos it holds: distractors.make_pool).
        print("(../shared/data/transcripts is not here: only --exclude-corpus is left out)")
    for corpus in corpora:
        excluded |= exported_ids(corpus)
    captions, captions_out = captions_videos(Source(args.captions), excluded)
    coding, coding_out = coding_train_videos(Source(args.coding_train), excluded)
    chosen = sample(captions + coding, args.lines)
    languages = Counter(v.language for v in chosen)
    lines = Counter()
    for video in chosen:
        lines[video.language] += video.lines
    manifest = {
        "videos": len(chosen),
        "distinct_videos": len({v.video_id for v in chosen}),
        "lines": sum(lines.values()),
        "languages": {lang: [languages[lang], lines[lang]] for lang in sorted(languages)},
        "excluded_corpora": [str(c) for c in corpora],
        "excluded_corpus_ids": sorted(excluded),
        "left_out_captions_folders": captions_out,
        "left_out_coding_train_files": coding_out,
        "available": {"3b1b": len(captions), "coding-train": len(coding)},
    }
    out = args.out or cache_dir() / "pool"
    export(chosen, out, manifest)
    print(
        f"{manifest['videos']} transcripts ({manifest['distinct_videos']} videos), "
        f"{manifest['lines']} lines, {len(languages)} languages -> {out}\n"
        + ", ".join(f"{lang} {n} ({lines[lang]} lines)" for lang, n in sorted(languages.items()))
        + f"\nleft out: {len(captions_out)} captions folders {captions_out}, "
        f"{len(coding_out)} coding-train files"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
