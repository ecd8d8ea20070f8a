"""What the language of each sentence costs: `transcribe_file` with it (each sentence
listened to again, a doubtful one decoded in its likely languages) against the same call
with the file-level detection alone (`sentence_language=False`, what indexing did before),
in the same run, idle and beside bench_media_busy's CPU hog.

Two inputs: the code-switching talk (tests/fixtures/media/languages.ogg, 42 s, English,
German, Spanish: the worst case, three of its seven sentences decoded again) and the
English-only speech fixture (speech.ogg, 30 s: the common case, where each sentence costs
one more encoder pass). The model is loaded before timing; each figure is the best of
BENCH_LANGUAGE_ROUNDS (default 2) calls. Printed as seconds and the ratio to the baseline.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.bench.bench_media_busy import Hog, load
from tests.bench.common import header
from video_research.media.speech import transcribe_file

MEDIA = Path(__file__).parent.parent / "fixtures" / "media"
ROUNDS = int(os.environ.get("BENCH_LANGUAGE_ROUNDS", "2"))


def _best(path: Path, per_sentence: bool) -> float:
    times = []
    for _ in range(ROUNDS):
        began = time.perf_counter()
        transcribe_file(str(path), sentence_language=per_sentence)
        times.append(time.perf_counter() - began)
    return min(times)


def _table(label: str) -> None:
    print(f"\n{label} ({load()})")
    print("| input | file-level language (s) | per sentence (s) | ratio |\n|---|---|---|---|")
    for name in ("languages.ogg", "speech.ogg"):
        base = _best(MEDIA / name, False)
        ours = _best(MEDIA / name, True)
        print(f"| {name} | {base:.2f} | {ours:.2f} | x{ours / base:.2f} |")


def main() -> None:
    header("Language of each sentence: transcription time")
    transcribe_file(str(MEDIA / "speech.ogg"))  # loads the model
    _table("idle")
    with Hog():
        _table("beside the CPU hog")


if __name__ == "__main__":
    main()
