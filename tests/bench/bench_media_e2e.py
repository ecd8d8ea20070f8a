"""Local perception end to end: index_media_files on a 10-minute 720p lecture (speech,
scenes, on-screen text, index) against a target of 150 s with the default speech model,
beside the engines called directly on the same file in the same run.

The video is made at bench time and cached (BENCH_CACHE_DIR, default the temp folder's
video-research-bench/), so a rerun reuses it: 20 slides drawn with Pillow (a title and two
lines, one slide per 30 s) at 1280x720, 25 fps, H.264 (libx264 through PyAV); the audio
is the five spoken sentences of tests/fixtures/media/speech.ogg (espeak-ng) cut out of
their silences and strung together with short pauses to 10 minutes, AAC: speech most of
the time, as in a talk, not the fixture's half silence (Silero VAD would skip that, and
the figure would flatter us).

- ours: `index_media_files` through the dispatch table with screen_text on (the default):
  speech in a media worker, then scene detection and OCR in a media worker, chunking,
  embedding and the store. A first call on the lecture fixture loads the embedder and
  starts the workers before anything is timed.
- (a) faster-whisper's `WhisperModel.transcribe` on the same file with bench_speech's
  options (the bundled base model, int8, greedy, Silero VAD, word timestamps);
- (b) RapidOCR called directly on one 1280x720 keyframe per slide (decoded with PyAV
  before the clock starts);
- (c) the scene pass's share: FFmpeg's `select='gt(scene,0.3)'` over every frame
  (imageio-ffmpeg's binary), as bench_media compares detect_scenes with;
- ours in-process: `detect_scenes` and `read_screen_text` (scenes, keyframes, OCR,
  merging) called here, without the worker and the store, against (c) and (b)+(c).

The tool's speech phase runs from its "speech:" stage message (after the scenes and the
on-screen text, whose cuts the speech moments respect) to its last "transcribed" one,
which splits its time into speech and the rest. Printed: each part, our total against (a)+(b) and
(a)+(b)+(c) as ratios, and the target.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from tests.bench.bench_media import ffmpeg_scene_pass
from tests.bench.bench_speech import whisper_direct
from tests.bench.common import header, report, run_with_env
from tests.calls import call_ok

MEDIA = Path(__file__).parent.parent / "fixtures" / "media"
SPEECH = MEDIA / "speech.ogg"
LECTURE = MEDIA / "lecture.mp4"
SECONDS = 600
SLIDE_SECONDS = 30
FPS = 25
WIDTH, HEIGHT = 1280, 720
PAUSE = 0.6
"""Seconds of silence between two spoken sentences (a speaker's breath)."""
TARGET = 150.0
VERSION = 1
"""Bumped when the recipe changes, so a cached video of an older recipe is not reused."""

TOPICS = [
    ("Photosynthesis", "Light becomes sugar in the leaf", "Chlorophyll absorbs red and blue"),
    ("Mitochondria", "Cells burn glucose for energy", "ATP carries the energy around"),
    ("Plate Tectonics", "Continents drift a few centimetres", "Earthquakes mark the edges"),
    ("Black Holes", "Gravity traps even light", "The event horizon has no way back"),
    ("Vaccines", "Training the immune memory", "Antibodies recognise the virus"),
    ("Volcanoes", "Magma rises through the crust", "Ash clouds cool the climate"),
    ("Ocean Currents", "Warm water flows to the poles", "The Gulf Stream warms Europe"),
    ("Neurons", "Signals travel as electric spikes", "Synapses pass them chemically"),
    ("Genetics", "DNA stores the recipe of life", "Genes are read into proteins"),
    ("Climate", "Carbon dioxide traps the heat", "Ice cores record past climates"),
    ("Bacteria", "Single cells without a nucleus", "Most of them are harmless"),
    ("Galaxies", "Billions of stars bound together", "The Milky Way is a spiral"),
    ("Erosion", "Rivers carve valleys over time", "Wind shapes desert dunes"),
    ("Enzymes", "Proteins that speed up reactions", "Each fits its substrate"),
    ("Magnetism", "Moving charges make fields", "Compasses point to the north"),
    ("Fossils", "Stone keeps the shape of bones", "Layers tell their age"),
    ("Tides", "The Moon pulls on the oceans", "Two high tides every day"),
    ("Batteries", "Chemistry stores electric charge", "Lithium ions move inside"),
    ("Pollination", "Bees carry pollen between flowers", "Fruit follows the flower"),
    ("Summary", "Questions are welcome now", "Thank you for listening"),
]


def cache_dir() -> Path:
    base = os.environ.get("BENCH_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), "video-research-bench"
    )
    folder = Path(base)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _speech_track(seconds: int):
    """The fixture's sentences without their silences, pauses of PAUSE s, to `seconds`."""
    import numpy as np

    from video_research.media import speech

    rate = speech.SAMPLE_RATE
    audio = speech.decode_audio(str(SPEECH), 3600)
    sentences = json.loads((MEDIA / "speech.json").read_text())["sentences"]
    pause = np.zeros(int(PAUSE * rate), dtype=np.float32)
    pieces = []
    for sentence in sentences:
        low = max(0, int((sentence["start"] - 0.15) * rate))
        high = int((sentence["end"] + 0.15) * rate)
        pieces += [audio[low:high], pause]
    once = np.concatenate(pieces)
    total = seconds * rate
    return np.tile(once, total // once.size + 1)[:total].astype(np.float32), rate


def _slide(n: int):
    from PIL import Image, ImageDraw, ImageFont

    title, first, second = TOPICS[n % len(TOPICS)]
    image = Image.new("RGB", (WIDTH, HEIGHT), (250, 250, 245) if n % 2 else (235, 242, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 150), fill=(30, 60, 110))
    draw.text((80, 40), title, fill=(255, 255, 255), font=ImageFont.load_default(size=72))
    body = ImageFont.load_default(size=48)
    draw.text((100, 280), first, fill=(20, 20, 20), font=body)
    draw.text((100, 400), second, fill=(20, 20, 20), font=body)
    draw.text((WIDTH - 200, HEIGHT - 70), f"{n + 1} / 20", fill=(90, 90, 90), font=body)
    return image


def make_video(seconds: int = SECONDS) -> Path:
    """The lecture (10 minutes unless `seconds` says otherwise, in whole slides), from the
    cache when an earlier run made it."""
    target = cache_dir() / f"lecture{seconds}-v{VERSION}.mp4"
    if target.exists():
        return target
    import av

    audio, rate = _speech_track(seconds)
    partial = target.with_suffix(".part.mp4")
    with av.open(str(partial), "w") as out:
        video = out.add_stream("libx264", rate=FPS)
        video.width, video.height, video.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        video.options = {"preset": "ultrafast", "crf": "26", "tune": "stillimage"}
        sound = out.add_stream("aac", rate=rate)
        sound.layout = "mono"
        sound.bit_rate = 64000
        frames_per_slide = SLIDE_SECONDS * FPS
        samples_per_slide = SLIDE_SECONDS * rate
        for n in range(seconds // SLIDE_SECONDS):
            frame = av.VideoFrame.from_image(_slide(n)).reformat(format="yuv420p")
            for k in range(frames_per_slide):
                frame.pts = n * frames_per_slide + k
                frame.time_base = Fraction(1, FPS)
                out.mux(video.encode(frame))
            chunk = audio[n * samples_per_slide : (n + 1) * samples_per_slide]
            piece = av.AudioFrame.from_ndarray(chunk.reshape(1, -1), format="flt", layout="mono")
            piece.sample_rate = rate
            piece.pts = n * samples_per_slide
            piece.time_base = Fraction(1, rate)
            out.mux(sound.encode(piece))
        out.mux(video.encode(None))
        out.mux(sound.encode(None))
    partial.replace(target)
    return target


def whisper_direct_on(path: Path) -> float:
    """(a): faster-whisper on `path` with the server's options, its model loaded first."""
    from video_research.media import speech

    model = speech.load_model(speech.BUNDLED_MODEL, 0, "")
    model.transcribe(str(SPEECH), beam_size=1, vad_filter=True)  # loads the VAD too
    return whisper_direct(model, path)


def ocr_direct(path: Path, seconds: int = SECONDS) -> tuple[float, int]:
    """(b): RapidOCR on one keyframe per slide (decoded first): (seconds, lines read)."""
    import av

    from video_research.media.ocr import engine

    wanted = [n * SLIDE_SECONDS + SLIDE_SECONDS / 2 for n in range(seconds // SLIDE_SECONDS)]
    pictures = []
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for at in wanted:
            container.seek(int(at / stream.time_base), stream=stream)
            for frame in container.decode(stream):
                if frame.time >= at - 0.5 / FPS:
                    pictures.append(frame.to_ndarray(format="bgr24"))
                    break
    ocr = engine()
    ocr(pictures[0])  # loads the three models
    started = time.perf_counter()
    lines = 0
    for pixels in pictures:
        found, _ = ocr(pixels)
        lines += len(found or [])
    return time.perf_counter() - started, lines


def scenes_direct(path: Path) -> float:
    """(c): FFmpeg's scene filter over every frame of `path`, in seconds."""
    started = time.perf_counter()
    ffmpeg_scene_pass(path)
    return time.perf_counter() - started


def _ours_in_process(path: Path) -> tuple[float, float, int]:
    """Our scene pass alone, and our whole on-screen text reading (scenes, keyframe
    decoding, OCR, merging), in this process: the tool's second half without the worker
    and the store. Returns (scenes s, screen text s, keyframes read)."""
    from video_research.media.limits import MediaLimits
    from video_research.media.ocr import read_screen_text
    from video_research.media.scenes import detect_scenes

    limits = MediaLimits()
    started = time.perf_counter()
    detect_scenes(str(path), limits)
    scenes = time.perf_counter() - started
    started = time.perf_counter()
    found = read_screen_text(str(path), limits)
    return scenes, time.perf_counter() - started, found["keyframes_read"]


async def warm_up(folder: Path) -> None:
    """index_media_files on the lecture fixture (copied into `folder`, a file root), once per
    media worker and all at once: loads the embedder, starts the workers and loads the
    speech and OCR models in each before anything is timed. One call warmed one worker only,
    and the timed call whose speech went to the other paid its model loading (~1-4 s)."""
    from video_research.config import get_config

    async def once(n: int) -> None:
        warm = folder / f"warm{n}"
        warm.mkdir(exist_ok=True)
        shutil.copy(LECTURE, warm / f"warm{n}.mp4")
        await call_ok("index_media_files", {"paths": [str(warm)], "force_reindex": True})

    await asyncio.gather(*(once(n) for n in range(get_config().media_workers)))


async def index_timed(
    video: Path, folder: Path, on_progress: Callable[[float, str | None], None] | None = None
) -> dict[str, float]:
    """index_media_files on `video` (copied into `folder`, which must be a file root), after
    `warm_up`: {"ours" (s), "speech" (s from the speech stage's first progress to its last
    "transcribed" one), "chunks", "screen_chunks"}. `on_progress(seconds since the call began, message)` sees each
    progress notification."""
    media = folder / "media"
    media.mkdir(exist_ok=True)
    shutil.copy(video, media / video.name)
    transcribed: list[float] = []
    speaking: list[float] = []
    started = time.perf_counter()

    async def progress(done: float, total: float | None, message: str | None) -> None:
        now = time.perf_counter()
        if message and ") speech:" in message:
            speaking.append(now)
        if message and "transcribed" in message:
            transcribed.append(now)
        if on_progress is not None:
            on_progress(now - started, message)

    result = await call_ok(
        "index_media_files",
        {"paths": [str(media)], "screen_text": True, "force_reindex": True},
        progress=progress,
    )
    ours = time.perf_counter() - started
    assert result["batch"]["indexed_count"] == 1, result
    return {
        "ours": ours,
        # the speech stage starts after the scenes and the screen text (its moments never
        # cross a scene cut); its last "transcribed" progress comes as the speech ends
        "speech": (transcribed[-1] if transcribed else started)
        - (speaking[0] if speaking else started),
        "chunks": result["batch"].get("chunk_count", 0),
        "screen_chunks": result["screen_chunk_count"],
    }


def main() -> None:
    header(
        f"media end to end: index_media_files on a {SECONDS // 60}-minute {WIDTH}x{HEIGHT} "
        f"{FPS} fps lecture (speech + scenes + OCR + index), target <= {TARGET:.0f} s"
    )
    began = time.perf_counter()
    video = make_video()
    print(f"   input: {video} (made or reused in {time.perf_counter() - began:.1f} s)", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-e2e-"))
    timed: dict[str, float] = {}

    async def tool() -> None:
        await warm_up(folder)
        timed.update(await index_timed(video, folder))

    run_with_env(
        {
            "VIDEO_RESEARCH_DATA_DIR": tempfile.mkdtemp(prefix="bench-e2e-data-"),
            "VIDEO_RESEARCH_FILE_ROOTS": str(folder),
            "VIDEO_RESEARCH_TOOLSETS": "all",
        },
        tool,
    )
    ours = timed["ours"]
    whisper = whisper_direct_on(video)
    ocr, lines = ocr_direct(video)
    scenes = scenes_direct(video)
    our_scenes, our_screen, keyframes = _ours_in_process(video)
    print(
        f"   ours: {timed['chunks']} speech chunks and {timed['screen_chunks']} on-screen text "
        f"chunks indexed; direct OCR read {lines} lines on {SECONDS // SLIDE_SECONDS} keyframes",
        flush=True,
    )
    print(
        f"   where the time goes (direct): (a) speech {whisper:.1f} s, (b) OCR {ocr:.1f} s, "
        f"(c) scene pass {scenes:.1f} s; ours {ours:.1f} s: speech (its stage to its last "
        f"progress) {timed['speech']:.1f} s, scenes, OCR, both indexings and the rest "
        f"{ours - timed['speech']:.1f} s",
        flush=True,
    )
    report(
        "ours: speech (its stage to its last progress)",
        timed["speech"],
        "s",
        "(a) whisper direct",
        whisper,
        higher_is_better=False,
    )
    report(
        "ours: the rest (index, scenes, OCR, index)",
        ours - timed["speech"],
        "s",
        "(b) OCR + (c) scenes direct",
        ocr + scenes,
        higher_is_better=False,
    )
    report(
        "ours in-process: detect_scenes",
        our_scenes,
        "s",
        "(c) ffmpeg select=scene CLI",
        scenes,
        higher_is_better=False,
    )
    report(
        f"ours in-process: read_screen_text ({keyframes} OCR)",
        our_screen,
        "s",
        "(b) OCR + (c) scenes direct",
        ocr + scenes,
        higher_is_better=False,
    )
    report(
        "index_media_files end to end",
        ours,
        "s",
        "(a) whisper + (b) OCR direct",
        whisper + ocr,
        higher_is_better=False,
    )
    report(
        "index_media_files end to end",
        ours,
        "s",
        "(a) + (b) + (c) scenes direct",
        whisper + ocr + scenes,
        higher_is_better=False,
    )
    verdict = "holds" if ours <= TARGET else "does NOT hold"
    print(
        f"   target <= {TARGET:.0f} s for {SECONDS // 60} minutes: {ours:.1f} s, {verdict} "
        f"(x{ours / TARGET:.2f} of the target; real-time factor {ours / SECONDS:.3f})",
        flush=True,
    )
