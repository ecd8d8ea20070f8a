"""Makes the mixed-media eval set (tests/eval/mixed_media_set.py) on demand, into the eval
cache (VIDEO_RESEARCH_EVAL_CACHE, default /tmp/video-research-eval), the way users make
media: each slide is a clip (a still image with its text, espeak-ng speaking over it, the
audio ending before the picture, so the joined audio has gaps), and a lecture is its clips
joined with ffmpeg's concat demuxer and `-c copy`; some lectures get their captions beside.

The truth of each sentence's start is its place in the clip plus the onset measured in
espeak's own samples (the first sample above the noise floor), plus the clip's place in the
joined file (the sum of the clips before it, each exactly as long as its picture), so it
depends on no decoder. truth.json holds it, with each slide's span.

Deterministic: espeak-ng, PIL, x264 with one thread and the bitexact flags give the same
bytes on each run with the same ffmpeg (imageio-ffmpeg's, from the test extras).
Needs espeak-ng (Debian) and fonts-wqy-zenhei (the Chinese slide).
Run: .venv/bin/python -m tests.eval.mixed_media_make [DIR]  (prints the folder)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import wave
from dataclasses import asdict
from pathlib import Path

import numpy as np

from tests.eval.mixed_media_set import LECTURES, Lecture, Slide

VERSION = 2
"""Bump when the way media is made changes (the content is hashed on its own)."""
RATE = 16000
SIZE = (1280, 720)
"""A 720p recording, as screen recorders and lecture capture write at the least."""
FPS = 5
LEAD = 0.5
"""Silence before a clip's first sentence."""
PAUSE = 0.8
"""Silence between two sentences."""
TAIL = 0.6
"""Silence after a clip's last sentence, before its picture ends."""
ONSET_LEVEL = 0.02
SPEED = 150
"""espeak-ng words a minute."""
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
CJK = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"
BITEXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact"]
BITEXACT += ["-map_metadata", "-1", "-threads", "1"]


def missing_tools() -> list[str]:
    """What the generator needs and this machine lacks (the test skips on any)."""
    lacking = [] if shutil.which("espeak-ng") else ["espeak-ng"]
    for font in (FONT, BOLD, CJK):
        if not Path(font).is_file():
            lacking.append(font)
    try:
        import imageio_ffmpeg

        imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError):
        lacking.append("ffmpeg (imageio-ffmpeg)")
    return lacking


def content_key(lectures: tuple[Lecture, ...] = LECTURES) -> str:
    text = json.dumps([VERSION, [asdict(lecture) for lecture in lectures]], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def cache_dir() -> Path:
    root = os.environ.get("VIDEO_RESEARCH_EVAL_CACHE") or str(
        Path(tempfile.gettempdir()) / "video-research-eval"
    )
    return Path(root) / "mixed-media" / content_key()


def build(out: Path | None = None, only: tuple[str, ...] = ()) -> Path:
    """The set's folder (media, captions, truth.json), made there unless already made."""
    lectures = tuple(lecture for lecture in LECTURES if not only or lecture.name in only)
    out = out or cache_dir()
    if (out / "truth.json").is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    truth = {}
    with tempfile.TemporaryDirectory() as folder:
        for lecture in lectures:
            truth[lecture.name] = _lecture(lecture, out, Path(folder))
    # written last: its presence says the folder is complete
    (out / "truth.json").write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n")
    return out


def _ffmpeg(*args: str) -> None:
    import imageio_ffmpeg

    exe = imageio_ffmpeg.get_ffmpeg_exe()
    subprocess.run([exe, "-nostdin", "-loglevel", "error", "-y", *args], check=True)


def _lecture(lecture: Lecture, out: Path, work: Path) -> dict:
    parts, sentences, slides = [], [], []
    at = 0.0
    for n, slide in enumerate(lecture.slides, start=1):
        voice = slide.voice or lecture.voice
        audio, said, seconds = _clip_audio(slide, voice, work / f"{lecture.name}{n}")
        picture = work / f"{lecture.name}{n}.png"
        _draw(slide.lines, lecture.colour, picture)
        clip = work / f"{lecture.name}{n}.mp4"
        _clip(picture, audio, seconds, clip)
        parts.append(clip)
        slides.append(
            {
                "id": f"{lecture.name}/slide{n}",
                "start": round(at, 3),
                "end": round(at + seconds, 3),
                "lines": list(slide.lines),
            }
        )
        for m, (start, end, text) in enumerate(said, start=1):
            sentences.append(
                {
                    "id": f"{lecture.name}/{n}.{m}",
                    "start": round(at + start, 3),
                    "end": round(at + end, 3),
                    "text": text,
                    "language": voice.split("-")[0],
                }
            )
        at += seconds
    video = out / f"{lecture.name}.mp4"
    _join(parts, video, work)
    if lecture.captions:
        path = out / f"{lecture.name}{lecture.captions}"
        path.write_text(_captions(sentences, at, srt=lecture.captions.endswith(".srt")))
    return {"duration": round(at, 3), "sentences": sentences, "slides": slides}


def speak(text: str, voice: str, wav: Path) -> np.ndarray:
    """espeak-ng's sentence at 16 kHz mono float32 (resampled linearly from its rate)."""
    subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(SPEED), "-w", str(wav), text],
        check=True,
        capture_output=True,
    )
    with wave.open(str(wav)) as w:
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32)
        source_rate = w.getframerate()
    pcm /= 32768.0
    positions = np.arange(0, len(pcm), source_rate / RATE)
    return np.interp(positions, np.arange(len(pcm)), pcm).astype(np.float32)


def _voiced(pcm: np.ndarray) -> tuple[float, float]:
    loud = np.flatnonzero(np.abs(pcm) > ONSET_LEVEL)
    return float(loud[0]) / RATE, float(loud[-1] + 1) / RATE


def _clip_audio(slide: Slide, voice: str, stem: Path) -> tuple[Path, list, float]:
    """The clip's speech as a wav, each sentence's (start, end, text) within it, and the
    clip's length: the picture's, a whole number of frames, longer than the speech."""
    pieces = [np.zeros(int(LEAD * RATE), np.float32)]
    said = []
    at = LEAD
    for m, text in enumerate(slide.said):
        pcm = speak(text, voice, stem.with_name(f"{stem.name}_{m}.wav"))
        first, last = _voiced(pcm)
        said.append((at + first, at + last, text))
        pieces.append(pcm)
        at += len(pcm) / RATE
        gap = PAUSE if m + 1 < len(slide.said) else slide.pause_after
        pieces.append(np.zeros(int(gap * RATE), np.float32))
        at += int(gap * RATE) / RATE
    track = np.concatenate(pieces)
    seconds = math.ceil((len(track) / RATE + TAIL) * FPS) / FPS
    path = stem.with_suffix(".wav")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes((np.clip(track, -1, 1) * 32767).astype(np.int16).tobytes())
    return path, said, seconds


def _draw(lines: tuple[str, ...], colour: str, out: Path) -> None:
    """A slide: its title large at the top, its other lines below, white on `colour`;
    the Chinese font where a line has CJK characters."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", SIZE, colour)
    pen = ImageDraw.Draw(image)
    scale = SIZE[1] / 720
    y = 80 * scale
    for n, line in enumerate(lines):
        cjk = any("\u3000" <= ch <= "\u9fff" for ch in line)
        size = round((64 if n == 0 else 44) * scale)
        font = ImageFont.truetype(CJK if cjk else (BOLD if n == 0 else FONT), size)
        width = pen.textlength(line, font=font)
        x = (SIZE[0] - width) / 2 if n == 0 else 100 * scale
        pen.text((x, y), ("" if n == 0 else "- ") + line, font=font, fill="white")
        y += size + (64 if n == 0 else 36) * scale
    image.save(out)


def _clip(picture: Path, audio: Path, seconds: float, out: Path) -> None:
    frames = round(seconds * FPS)
    _ffmpeg(
        *["-loop", "1", "-framerate", str(FPS), "-i", str(picture), "-i", str(audio)],
        *["-frames:v", str(frames), "-c:v", "libx264", "-preset", "medium", "-tune", "stillimage"],
        *["-crf", "30", "-pix_fmt", "yuv420p", "-g", str(FPS * 10)],
        *["-c:a", "aac", "-b:a", "32k", "-ac", "1", "-ar", str(RATE)],
        *BITEXACT,
        str(out),
    )


def _join(parts: list[Path], out: Path, work: Path) -> None:
    listing = work / f"{out.stem}.txt"
    listing.write_text("".join(f"file '{part}'\n" for part in parts))
    _ffmpeg(
        *["-f", "concat", "-safe", "0", "-i", str(listing), "-c", "copy"],
        *BITEXACT,
        *["-movflags", "+faststart", str(out)],
    )


def _captions(sentences: list[dict], end: float, srt: bool) -> str:
    """One cue per sentence from its start to its end, as a caption editor times them."""
    lines = [] if srt else ["WEBVTT", ""]
    for n, sentence in enumerate(sentences, start=1):
        stop = sentence["end"] if sentence["end"] > sentence["start"] else end
        span = f"{_clock(sentence['start'], srt)} --> {_clock(stop, srt)}"
        lines += ([str(n)] if srt else []) + [span, sentence["text"], ""]
    return "\n".join(lines)


def _clock(seconds: float, srt: bool) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, rest = divmod(rest, 60)
    text = f"{int(hours):02d}:{int(minutes):02d}:{rest:06.3f}"
    return text.replace(".", ",") if srt else text


def main(argv: list[str]) -> int:
    folder = build(Path(argv[0]) if argv else None)
    print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
