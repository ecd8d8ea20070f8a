"""Local media against the FFmpeg command line doing the same work, in the same run.

The FFmpeg binary is imageio-ffmpeg's (`imageio_ffmpeg.get_ffmpeg_exe()`), so no system
ffmpeg is needed. The test video is the lecture fixture scaled to 1280x720 at 30 fps and
played twice (144 s, 12 slides, 11 hard cuts), made once per run with that binary.

- scene detection: `media.scenes.detect_scenes` vs `ffmpeg -vf select='gt(scene,0.3)'`
  (both decode every frame);
- frame extraction, 10 frames evenly spaced as JPEG: `media.frames.extract_frames` vs ten
  `ffmpeg -ss T -i f -frames:v 1 x.jpg` runs (input seeking, FFmpeg's fastest way) and vs
  imageio-ffmpeg's `read_frames` (a raw-RGB pipe from an ffmpeg subprocess per time);
- OCR, ms per keyframe: `media.ocr.read_screen_text` (scene detection, decoding and
  merging included) and our `read_image` alone vs RapidOCR called directly on the same
  frames.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

from tests.bench.common import header, report

FIXTURE = Path(__file__).parent.parent / "fixtures" / "media" / "lecture.mp4"
FRAMES = 10


def _ffmpeg() -> str:
    import imageio_ffmpeg

    return imageio_ffmpeg.get_ffmpeg_exe()


def ffmpeg_scene_pass(video: Path) -> None:
    """FFmpeg's own scene filter over `video` (the command-line baseline of scene cuts)."""
    subprocess.run(
        [
            _ffmpeg(),
            "-nostdin",
            "-loglevel",
            "error",
            "-i",
            str(video),
            "-an",
            "-vf",
            "select='gt(scene,0.3)',metadata=print:file=-",
            "-f",
            "null",
            "-",
        ],
        check=True,
        capture_output=True,
    )


def _make_video(directory: Path) -> Path:
    target = directory / "lecture720.mp4"
    subprocess.run(
        [
            _ffmpeg(),
            "-nostdin",
            "-loglevel",
            "error",
            "-y",
            "-stream_loop",
            "1",
            "-i",
            str(FIXTURE),
            "-vf",
            "scale=1280:720,fps=30",
            "-c:v",
            "libx264",
            "-preset",
            "veryfast",
            "-crf",
            "28",
            "-c:a",
            "copy",
            str(target),
        ],
        check=True,
    )
    return target


def _best(run, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        run()
        times.append(time.perf_counter() - began)
    return min(times)


def _scenes(video: Path) -> None:
    from video_research.media.limits import MediaLimits
    from video_research.media.scenes import detect_scenes

    found = {}

    def ours() -> None:
        found["scenes"] = detect_scenes(str(video), MediaLimits())["scenes"]

    def cli() -> None:
        ffmpeg_scene_pass(video)

    header("media: scene detection, 144 s of 1280x720 at 30 fps (best of 3)")
    mine, theirs = _best(ours), _best(cli)
    report(
        "scenes: detect_scenes (PyAV)",
        mine,
        "s",
        "ffmpeg select=scene CLI",
        theirs,
        higher_is_better=False,
    )
    print(f"   scenes found: {len(found['scenes'])} (12 slides shown, 11 cuts)", flush=True)
    pooled = _pooled(detect_scenes, str(video), MediaLimits())
    report(
        "scenes: detect_scenes in a media worker",
        pooled,
        "s",
        "detect_scenes in the process",
        mine,
        higher_is_better=False,
    )


def _pooled(function, *args, **kwargs) -> float:
    """Best of 3 of `function(*args)` as the server runs it: in a media worker process
    (parse_isolated on MEDIA_POOL, with a progress pipe), after a warm-up that starts it."""
    import asyncio

    from tests.bench.common import in_services, services_for
    from video_research.support.isolation import MEDIA_POOL, WorkerProgress, parse_isolated

    async def run() -> float:
        times = []
        for n in range(4):
            began = time.perf_counter()
            await parse_isolated(
                "bench",
                function,
                *args,
                worker_pool=MEDIA_POOL,
                worker_progress=WorkerProgress("tick", lambda seconds: None),
                **kwargs,
            )
            if n:
                times.append(time.perf_counter() - began)
        return min(times)

    return asyncio.run(in_services(services_for(MEDIA_WORKERS="1"), run))


def _frames(video: Path, directory: Path) -> None:
    import imageio_ffmpeg

    from video_research.media.frames import extract_frames, spaced_times
    from video_research.media.limits import MediaLimits

    times = spaced_times(0, 144, FRAMES)

    def ours() -> None:
        got = extract_frames(
            str(video),
            MediaLimits(max_frame_edge=1280, max_output_bytes=64 * 1024**2),
            count=FRAMES,
        )
        assert len(got["frames"]) == FRAMES

    def cli() -> None:
        for n, at in enumerate(times):
            subprocess.run(
                [
                    _ffmpeg(),
                    "-nostdin",
                    "-loglevel",
                    "error",
                    "-y",
                    "-ss",
                    str(at),
                    "-i",
                    str(video),
                    "-frames:v",
                    "1",
                    "-q:v",
                    "4",
                    str(directory / f"f{n}.jpg"),
                ],
                check=True,
            )

    def imageio() -> None:
        for at in times:
            reader = imageio_ffmpeg.read_frames(
                str(video), input_params=["-ss", str(at)], output_params=["-frames:v", "1"]
            )
            next(reader)  # the metadata
            frame = next(reader)
            assert len(frame) == 1280 * 720 * 3
            reader.close()

    header(f"media: {FRAMES} frames evenly spaced, 1280x720 (best of 3)")
    mine = _best(ours)
    report(
        "frames: extract_frames (PyAV, JPEG)",
        mine,
        "s",
        "ffmpeg -ss CLI x10 (JPEG)",
        _best(cli),
        higher_is_better=False,
    )
    report(
        "frames: extract_frames (PyAV, JPEG)",
        mine,
        "s",
        "imageio-ffmpeg read_frames (RGB)",
        _best(imageio),
        higher_is_better=False,
    )


def _ocr() -> None:
    import numpy as np

    from video_research.media.decode import frames_at
    from video_research.media.limits import MediaLimits
    from video_research.media.ocr import OCR_EDGE, engine, read_image, read_screen_text
    from video_research.media.probe import describe, open_container

    limits = MediaLimits()
    engine()  # load the models before anything is timed
    with open_container(str(FIXTURE), limits) as container:
        info = describe(container, str(FIXTURE), limits)
        pictures = frames_at(container, info, [6, 18, 30, 42, 54, 66], limits, max_edge=OCR_EDGE)
    arrays = [np.asarray(p.image)[:, :, ::-1] for p in pictures]

    def direct() -> None:
        for pixels in arrays:
            engine()(pixels)

    def ours() -> None:
        for picture in pictures:
            read_image(picture.image, 0.6)

    header("media: OCR of the lecture's 6 slide keyframes, 480x270 (best of 2)")
    baseline = _best(direct, 2) * 1000 / len(arrays)
    report(
        "ocr: read_image, ms per keyframe",
        _best(ours, 2) * 1000 / len(pictures),
        "ms",
        "RapidOCR direct",
        baseline,
        higher_is_better=False,
    )
    began = time.perf_counter()
    whole = read_screen_text(str(FIXTURE), limits, sample_seconds=60)
    in_process = time.perf_counter() - began
    per_keyframe = in_process * 1000 / whole["keyframes_read"]
    report(
        "ocr: read_screen_text end to end, ms/kf",
        per_keyframe,
        "ms",
        "RapidOCR direct",
        baseline,
        higher_is_better=False,
    )
    report(
        "ocr: read_screen_text in a media worker",
        _pooled(read_screen_text, str(FIXTURE), limits, sample_seconds=60),
        "s",
        "read_screen_text in the process",
        in_process,
        higher_is_better=False,
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        video = _make_video(directory)
        _scenes(video)
        _frames(video, directory)
        _ocr()
