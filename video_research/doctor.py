"""`video-research doctor`: does every engine a call needs load and run, and are the stores whole?

A broken install (a damaged weights file, a missing native library, a model that cannot
be found offline) would otherwise be found at the first real call, minutes into indexing.
Each check runs the production code path on a tiny input doctor makes itself, in a
temporary folder, so it needs no media of the user's and writes nothing to their stores:

- decode: a one-second clip with a picture and a tone is written with PyAV, probed, a
  frame decoded and scaled, and its audio decoded to 16 kHz (`media.decode`, `speech`).
- speech: the weights' SHA-256 checked (the bundled model against the upstream hashes; a
  model directory against the hashes of the conversion it claims to be, or against its
  Hugging Face cache blob names), then the model loaded and run on that clip.
- OCR: a line of text rendered with Pillow and read back by RapidOCR.
- embedder: one sentence embedded (a unit-length vector of the configured size).
- keyword and vector index: a throwaway embedded store with two objects, searched by
  keyword alone and by vector alone (the SQLite store's FTS/keyword index and its ANN).
- stores: each store of the data dir checked with `PRAGMA quick_check` (store_check).

Each check is a row: name, status (ok, broken, skipped), seconds, what was seen and, when
broken, the fix. doctor exits non-zero when a row is broken.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from video_research.config import Settings

OK, BROKEN, SKIPPED = "ok", "broken", "skipped"

OCR_LINE = "Doctor 42 tides"
"""The line rendered and read back; its key (letters and digits) must come back."""

_PROBE_SENTENCES = (
    "The moon's gravity raises the tides twice a day.",
    "A recipe for sourdough bread needs flour, water and salt.",
)


@dataclass
class Check:
    name: str
    status: str
    seconds: float
    detail: str = ""
    fix: str = ""

    @property
    def broken(self) -> bool:
        return self.status == BROKEN

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Broken(Exception):
    """A check's failure: what was seen and the fix."""

    def __init__(self, detail: str, fix: str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.fix = fix


def _timed(name: str, run: Callable[[], str]) -> Check:
    started = time.monotonic()
    try:
        detail = run()
        status, fix = OK, ""
    except Broken as exc:
        status, detail, fix = BROKEN, exc.detail, exc.fix
    except Exception as exc:  # an engine that fails in a way of its own: still a row
        status, detail = BROKEN, _failure_text(exc)
        fix = getattr(exc, "hint", "") or "Reinstall video-research; see docs/install.md."
    return Check(name, status, round(time.monotonic() - started, 2), detail, fix)


def _failure_text(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return " ".join(str(message).split())[:300]


# ----------------------------------------------------------------------------- the clip


def make_clip(path: Path) -> Path:
    """One second of 64x48 video (a colour change) and a 440 Hz tone at 16 kHz, as MP4."""
    import av
    import numpy as np

    with av.open(str(path), "w") as container:
        try:
            video = container.add_stream("libx264", rate=10)
        except (av.FFmpegError, ValueError):  # a PyAV built without x264
            video = container.add_stream("mpeg4", rate=10)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        audio = container.add_stream("aac", rate=16000)
        audio.layout = "mono"
        for n in range(10):
            rgb = np.zeros((48, 64, 3), np.uint8)
            rgb[..., 0 if n < 5 else 2] = 200
            container.mux(video.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")))
        container.mux(video.encode())
        tone = (0.3 * np.sin(2 * np.pi * 440 * np.arange(16000) / 16000)).astype(np.float32)
        for start in range(0, tone.size, 1024):
            frame = av.AudioFrame.from_ndarray(
                tone[None, start : start + 1024], format="fltp", layout="mono"
            )
            frame.sample_rate = 16000
            container.mux(audio.encode(frame))
        container.mux(audio.encode())
    return path


def check_decode(settings: Settings, clip: Path) -> str:
    from video_research.media import speech
    from video_research.media.decode import frames_at
    from video_research.media.limits import MediaLimits
    from video_research.media.probe import describe, open_container

    limits = MediaLimits.from_settings(settings)
    with open_container(str(clip), limits) as container:
        info = describe(container, str(clip), limits)
        pictures = frames_at(container, info, [0.2, 0.8], limits, max_edge=64)
    if len(pictures) != 2:
        raise Broken(
            f"decoded {len(pictures)} of 2 frames of a generated clip",
            "Reinstall PyAV (pip install --force-reinstall av).",
        )
    audio = speech.decode_audio(str(clip), 5.0)
    if not 0.5 < audio.size / speech.SAMPLE_RATE < 1.5:
        raise Broken(
            f"decoded {audio.size / speech.SAMPLE_RATE:.2f} s of a 1 s tone",
            "Reinstall PyAV (pip install --force-reinstall av).",
        )
    return f"PyAV: 2 frames and {audio.size / speech.SAMPLE_RATE:.1f} s of audio"


# ----------------------------------------------------------------------------- speech


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def verify_model_dir(folder: Path) -> str:
    """The weights of a CTranslate2 model directory checked against a known SHA-256.

    Known: a copy of the bundled conversion (its config.json and tokenizer.json match, so
    model.bin must match too), or a Hugging Face cache snapshot (model.bin links to a blob
    named by its SHA-256). Otherwise the hash is shown, not judged."""
    from video_research.media import speech

    weights = folder / "model.bin"
    if not weights.is_file():
        raise Broken(
            f"{folder} has no model.bin",
            "Point SPEECH_MODEL at a CTranslate2-converted Whisper model directory, or "
            "unset it (the bundled base model).",
        )
    same_as_bundled = all(
        (folder / name).is_file() and _sha256(folder / name) == speech.BUNDLED_SHA256[name]
        for name in ("config.json", "tokenizer.json")
    )
    if same_as_bundled:
        expected, source = speech.BUNDLED_SHA256["model.bin"], speech.BUNDLED_UPSTREAM
    elif weights.is_symlink() and weights.resolve().parent.name == "blobs":
        expected, source = weights.resolve().name, "its Hugging Face cache blob"
    else:
        return f"model.bin SHA-256 {_sha256(weights)[:12]}… (an unknown model: not compared)"
    actual = _sha256(weights)
    if actual != expected:
        raise Broken(
            f"{weights} does not match {source} (SHA-256 {actual[:12]}…, expected "
            f"{expected[:12]}…): the weights are damaged",
            f"Copy or download the model again into {folder}, or unset SPEECH_MODEL to use "
            "the bundled base model.",
        )
    return f"model.bin matches {source} (SHA-256 {expected[:12]}…)"


def check_speech(settings: Settings, clip: Path) -> str:
    from video_research.media import speech

    name = settings.speech_model
    model_dir = settings.speech_model_dir or str(settings.cache_dir / "speech-models")
    if name == speech.BUNDLED_MODEL:
        hashes = (
            f"bundled weights match {speech.BUNDLED_UPSTREAM} (SHA-256 "
            f"{speech.BUNDLED_SHA256['model.bin'][:12]}…)"
        )
    elif Path(name).expanduser().is_dir():
        hashes = verify_model_dir(Path(name).expanduser())
    else:
        hashes = f"{name}: from {model_dir} (hash checked by its download)"
    audio = speech.decode_audio(str(clip), 5.0)
    try:
        # The production loader (it checks the bundled weights' hashes), then the decoder
        # for a few tokens: a tone has no words, and Whisper left to itself on one writes
        # tokens until its 448-token limit (half a minute on two cores).
        whisper = speech.load_model(name, settings.speech_cpu_threads, model_dir)
        segments, info = whisper.transcribe(
            audio,
            language="en",
            beam_size=1,
            vad_filter=False,
            without_timestamps=True,
            condition_on_previous_text=False,
            max_new_tokens=4,
        )
        list(segments)
    except speech.SpeechError as exc:
        raise Broken(exc.message, exc.hint or "Unset SPEECH_MODEL (the bundled model).") from None
    return f"{speech.model_label(name)} ran on {info.duration:.0f} s of audio; {hashes}"


# ----------------------------------------------------------------------------- OCR


def _key(text: str) -> str:
    return "".join(char for char in text.casefold() if char.isalnum())


def check_ocr(settings: Settings) -> str:
    from PIL import Image, ImageDraw, ImageFont

    from video_research.media import ocr

    # Square: RapidOCR scales a picture until its short side is 736 px, so a strip of text
    # would be read at 4000 px wide; a square is the least it reads.
    image = Image.new("RGB", (400, 400), "white")
    font = ImageFont.load_default(size=32)
    ImageDraw.Draw(image).text((40, 180), OCR_LINE, fill="black", font=font)
    lines = ocr.read_image(image, 0.5, settings.media_ocr_threads)
    read = " ".join(text for text, _ in lines)
    if _key(OCR_LINE) not in _key(read):
        raise Broken(
            f"RapidOCR read {read!r} from a rendered {OCR_LINE!r}",
            "Reinstall RapidOCR (pip install --force-reinstall rapidocr-onnxruntime).",
        )
    return f"RapidOCR read {read!r}"


# ----------------------------------------------------------------------------- knowledge


def _embed_fix(exc: BaseException) -> Broken:
    hint = getattr(exc, "hint", "") or "Check KNOWLEDGE_EMBEDDING_* (doctor --verbose)."
    return Broken(_failure_text(exc), hint)


def check_embedder(settings: Settings) -> str:
    import numpy as np

    from video_research.knowledge.embedders.embeddings import get_embedder
    from video_research.knowledge.store import effective_settings

    settings = effective_settings(settings)
    if settings.embedding_provider == "gemini":
        return "gemini: a network service (not called by doctor)"
    try:
        embedder = get_embedder(settings)
        rows = asyncio.run(embedder.embed([_PROBE_SENTENCES[0]], "query"))
    except Exception as exc:
        raise _embed_fix(exc) from None
    norm = float(np.linalg.norm(rows[0])) if len(rows) else 0.0
    if (
        rows.shape != (1, embedder.dimensions)
        or not np.isfinite(rows).all()
        or abs(norm - 1) > 1e-3
    ):
        raise Broken(
            f"{embedder.model} gave a vector of shape {rows.shape}, length {norm:.3f}",
            "Reinstall video-research; if KNOWLEDGE_MODEL_CACHE_DIR is set, empty it.",
        )
    return f"{embedder.model}: {embedder.dimensions} dimensions"


def index_checks(settings: Settings, folder: Path) -> list[Check]:
    """The keyword and the vector index rows, from a throwaway embedded store in `folder`."""
    from video_research.knowledge.backends.sqlite_store import SqliteStore
    from video_research.knowledge.collections import RESEARCH_FINDINGS
    from video_research.knowledge.embedders.embeddings import get_embedder
    from video_research.knowledge.store import effective_settings

    settings = effective_settings(settings).model_copy(
        update={"knowledge_db_path": str(folder / "knowledge.db")}
    )
    collection = RESEARCH_FINDINGS.name
    fix = "Reinstall video-research (pip install --force-reinstall video-research)."

    async def run() -> tuple[list[Any], list[Any]]:
        store = SqliteStore(settings, get_embedder(settings))
        try:
            objects = [{"topic": "doctor", "claim": text} for text in _PROBE_SENTENCES]
            await store.insert_many(collection, objects)
            keyword = await store.hybrid(collection, "sourdough flour", alpha=0.0, limit=2)
            vector = await store.near_text(collection, "ocean tides and the moon", limit=1)
            return keyword, vector
        finally:
            await store.close()

    started = time.monotonic()
    try:
        keyword, vector = asyncio.run(run())
    except Exception as exc:
        took = round(time.monotonic() - started, 2)
        detail = f"a new store could not be written and searched: {_failure_text(exc)}"
        return [
            Check(name, BROKEN, took, detail, fix) for name in ("keyword index", "vector index")
        ]
    took = round(time.monotonic() - started, 2)
    found = [str(hit.properties.get("claim", "")) for hit in keyword]
    nearest = str(vector[0].properties.get("claim", "")) if vector else ""
    rows = [
        Check("keyword index", OK, took, "the one keyword match found")
        if found and "sourdough" in found[0]
        else Check("keyword index", BROKEN, took, f"found {found!r} for 'sourdough flour'", fix),
        Check("vector index", OK, 0.0, "the nearest sentence found")
        if "tides" in nearest
        else Check("vector index", BROKEN, 0.0, f"found {nearest!r} nearest to 'ocean tides'", fix),
    ]
    return rows


# ----------------------------------------------------------------------------- running


def engine_checks(settings: Settings) -> list[Check]:
    """Every engine a call may need, each run once on input made here."""
    checks: list[Check] = []
    with tempfile.TemporaryDirectory(prefix="video-research-doctor-") as scratch:
        folder = Path(scratch)
        clip = folder / "doctor.mp4"
        made = _timed("decode", lambda: (make_clip(clip), check_decode(settings, clip))[1])
        checks.append(made)
        if made.broken:
            checks.append(Check("speech", SKIPPED, 0.0, "needs the decode check's clip"))
        else:
            checks.append(_timed("speech", lambda: check_speech(settings, clip)))
        checks.append(_timed("ocr", lambda: check_ocr(settings)))
        embedder = _timed("embedder", lambda: check_embedder(settings))
        checks.append(embedder)
        if settings.weaviate_enabled:
            detail = "Weaviate holds the indexes (its own health is under services)"
            checks.append(Check("keyword index", SKIPPED, 0.0, detail))
            checks.append(Check("vector index", SKIPPED, 0.0, detail))
        elif embedder.broken or settings.embedding_provider == "gemini":
            detail = "needs the local embedder" if embedder.broken else "needs Gemini embeddings"
            checks.append(Check("keyword index", SKIPPED, 0.0, detail))
            checks.append(Check("vector index", SKIPPED, 0.0, detail))
        else:
            checks.extend(index_checks(settings, folder))
    return checks


def store_rows(stores: dict[str, dict[str, Any]]) -> list[Check]:
    """The stores' quick_check results (doctor_report's) as rows."""
    from video_research.support.store_check import RESTORE_HINT

    rows = []
    for name, store in stores.items():
        state = store["state"]
        broken = state == "damaged"
        detail = state + (f": {store['detail']}" if store["detail"] else "")
        rows.append(
            Check(
                f"store {name}",
                BROKEN if broken else OK,
                store["check_seconds"],
                f"{detail} [{store['path']}]",
                RESTORE_HINT if broken else "",
            )
        )
    return rows


def table(checks: list[Check]) -> str:
    """The rows as a short table: check, status, seconds, what was seen or the fix."""
    width = max(len(check.name) for check in checks)
    lines = []
    for check in checks:
        said = f"{check.detail}. Fix: {check.fix}" if check.broken else check.detail
        lines.append(
            f"{check.name:<{width}}  {check.status:<7}  {check.seconds:>5.1f}s  {said}".rstrip()
        )
    return "\n".join(lines)
