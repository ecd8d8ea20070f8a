"""OCR engines on the same keyframes, in the same run: is RapidOCR still the one to ship?

Keyframes (decoded with PyAV, one in the middle of each slide):
- the lecture fixture, 480x270, 6 slides (truth: tests/fixtures/media/lecture.json, title,
  body and the channel name in the corner);
- 6 slides of bench_media_e2e's 10-minute lecture, 1280x720 (its `_slide` drawing, H.264
  with the same encoder settings, 1 s per slide; truth: title, two lines, page number).

Engines:
- baseline: RapidOCR as the server runs it (`media.ocr.read_image`, angle classifier on,
  confidence >= 0.6, MEDIA_OCR_THREADS' default), and RapidOCR without the angle classifier
  (slides are upright), with ONNX Runtime on one thread (MEDIA_OCR_THREADS=1), and with
  detection at the frame's own size (by default it
  scales the shorter side up to 736 px, so a 480x270 frame is detected at 1308x736);
- Tesseract 5 through its command line (`tesseract - - --psm N`, a PNG on stdin), page
  segmentation modes 3 (auto), 6 (one block) and 11 (sparse text), and 6 with
  OMP_THREAD_LIMIT=1;
- GNU Ocrad and GOCR (Debian, no models at all), a PNM on stdin.
The command-line engines need their Debian packages: `apt-get install tesseract-ocr ocrad
gocr`; an engine not installed is skipped with that reason. EasyOCR, PaddleOCR, OnnxTR and
rapidocr 3 fetch their models at run time (GitHub, bcebos, ModelScope), so an offline
install cannot run them: they are not here.

Per engine: median ms per keyframe (after one warm-up read), median CPU ms per keyframe
(all threads; a command's from os.wait4), character accuracy against the
truth (spaces and case ignored, as tests/media/test_screen_text.py scores it, and with
spaces kept), peak RSS (the process's for RapidOCR, a command's from GNU time), each beside
the RapidOCR baseline as a ratio. The host is shared: the load average is printed too.
"""

from __future__ import annotations

import difflib
import io
import json
import os
import resource
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from tests.bench.common import header, median, report

MEDIA = Path(__file__).parent.parent / "fixtures" / "media"
LECTURE = MEDIA / "lecture.mp4"
SLIDES_720 = (0, 3, 7, 11, 15, 19)
"""Which of bench_media_e2e's 20 slides make the 720p keyframes."""
REPEAT = 2
"""Reads of each keyframe per engine; the median is over all of them."""
INSTALL = "apt-get install tesseract-ocr ocrad gocr"


@dataclass
class Keyframe:
    image: Any  # PIL image, RGB
    truth: str


@dataclass
class Figures:
    ms: float
    accuracy: float
    accuracy_spaced: float
    cpu_ms: float
    rss_mb: float | None


def accuracy(read: str, truth: str, *, spaces: bool = False) -> float:
    """1 - character error rate from difflib's matching blocks, case folded; spaces
    ignored unless `spaces` (the test of on-screen text scores without them)."""
    if not spaces:
        read, truth = read.replace(" ", ""), truth.replace(" ", "")
    else:
        read, truth = " ".join(read.split()), " ".join(truth.split())
    read, truth = read.casefold(), truth.casefold()
    matched = sum(
        block.size for block in difflib.SequenceMatcher(None, read, truth).get_matching_blocks()
    )
    return matched / max(len(truth), len(read), 1)


def _decode_at(path: Path, times: list[float]) -> list[Any]:
    import av

    images = []
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for at in times:
            container.seek(int(at / stream.time_base), stream=stream)
            for frame in container.decode(stream):
                if frame.time is not None and frame.time >= at - 0.05:
                    images.append(frame.to_image().convert("RGB"))
                    break
    return images


def lecture_keyframes() -> list[Keyframe]:
    truth = json.loads((MEDIA / "lecture.json").read_text())
    slides = truth["slides"]
    images = _decode_at(LECTURE, [(s["start"] + s["end"]) / 2 for s in slides])
    return [
        Keyframe(image, f"{s['title']} {s['body']} {truth['overlay']}")
        for image, s in zip(images, slides, strict=True)
    ]


def video_720_keyframes(directory: Path) -> list[Keyframe]:
    """A few of the 10-minute lecture's slides, encoded as bench_media_e2e encodes them."""
    import av

    from tests.bench.bench_media_e2e import FPS, HEIGHT, TOPICS, WIDTH, _slide

    target = directory / "slides720.mp4"
    with av.open(str(target), "w") as out:
        video = out.add_stream("libx264", rate=FPS)
        video.width, video.height, video.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        video.options = {"preset": "ultrafast", "crf": "26", "tune": "stillimage"}
        pts = 0
        for n in SLIDES_720:
            frame = av.VideoFrame.from_image(_slide(n)).reformat(format="yuv420p")
            for _ in range(FPS):
                frame.pts = pts
                frame.time_base = Fraction(1, FPS)
                out.mux(video.encode(frame))
                pts += 1
        out.mux(video.encode(None))
    images = _decode_at(target, [k + 0.5 for k in range(len(SLIDES_720))])
    truths = [f"{' '.join(TOPICS[n])} {n + 1} / 20" for n in SLIDES_720]
    return [Keyframe(image, text) for image, text in zip(images, truths, strict=True)]


# engines: each returns the text read in one image, lines top to bottom


def _server_threads() -> int:
    from video_research.media.limits import MediaLimits

    return MediaLimits().ocr_threads


def rapidocr_server(image: Any) -> str:
    from video_research.media.ocr import read_image

    return "\n".join(text for text, _ in read_image(image, 0.6, _server_threads()))


def rapidocr_one_thread(image: Any) -> str:
    """As the server runs it but with ONNX Runtime on one thread (MEDIA_OCR_THREADS=1)."""
    from video_research.media.ocr import read_image

    return "\n".join(text for text, _ in read_image(image, 0.6, 1))


def _rapidocr_lines(found: Any) -> str:
    lines = sorted(
        (min(p[1] for p in box), " ".join(str(text).split()))
        for box, text, score in found or []
        if float(score) >= 0.6
    )
    return "\n".join(text for _, text in lines)


def rapidocr_no_cls(image: Any) -> str:
    import numpy as np

    from video_research.media.ocr import engine

    found, _ = engine(_server_threads())(np.asarray(image)[:, :, ::-1], use_cls=False)
    return _rapidocr_lines(found)


@cache
def _rapidocr_with(**options: Any) -> Any:
    from rapidocr_onnxruntime import RapidOCR

    return RapidOCR(**options)


def rapidocr(**options: Any) -> Callable[[Any], str]:
    """RapidOCR with other settings than the server's (an engine of its own)."""

    def read(image: Any) -> str:
        import numpy as np

        from video_research.media.ocr import engine_options

        settings = {**engine_options(_server_threads()), **options}
        found, _ = _rapidocr_with(**settings)(np.asarray(image)[:, :, ::-1])
        return _rapidocr_lines(found)

    return read


_children: list[tuple[float, int | None]] = []
"""(CPU seconds, peak RSS in kB or None) of each command run since the last `measure`."""
TIME = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)


def _run(command: list[str], data: bytes, env: dict[str, str] | None = None) -> str:
    """`command` with `data` on stdin. Its CPU time comes from os.wait4; its peak RSS from
    GNU time when installed (a child forked from this process inherits this process's
    high-water mark across exec, so its own rusage cannot tell)."""
    with tempfile.TemporaryFile() as stdin, tempfile.NamedTemporaryFile("r") as peak:
        stdin.write(data)
        stdin.seek(0)
        wrapped = [TIME, "-f", "%M", "-o", peak.name, *command] if TIME else command
        process = subprocess.Popen(
            wrapped,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
        assert process.stdout is not None
        out = process.stdout.read()
        process.stdout.close()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            raise RuntimeError(f"{command[0]} exited with {process.returncode}")
        rss = int(peak.read().split()[-1]) if TIME else None
    _children.append((usage.ru_utime + usage.ru_stime, rss))
    return out.decode("utf-8", "replace")


def _encoded(image: Any, form: str) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=form)
    return buffer.getvalue()


def tesseract(psm: int, threads: int | None = None) -> Callable[[Any], str]:
    """Tesseract's CLI; `threads` sets OMP_THREAD_LIMIT (its OpenMP threads can contend)."""
    env = {"OMP_THREAD_LIMIT": str(threads)} if threads else None

    def read(image: Any) -> str:
        command = ["tesseract", "-", "-", "-l", "eng", "--psm", str(psm)]
        return _run(command, _encoded(image, "PNG"), env)

    return read


def ocrad(image: Any) -> str:
    return _run(["ocrad", "-"], _encoded(image, "PPM"))


def gocr(image: Any) -> str:
    return _run(["gocr", "-i", "-"], _encoded(image.convert("L"), "PPM"))


ENGINES: list[tuple[str, Callable[[Any], str], str | None]] = [
    ("RapidOCR no angle classifier", rapidocr_no_cls, None),
    ("RapidOCR, MEDIA_OCR_THREADS=1", rapidocr_one_thread, None),
    ("RapidOCR det at native size", rapidocr(det_limit_type="max", det_limit_side_len=1280), None),
    ("Tesseract 5 --psm 3", tesseract(3), "tesseract"),
    ("Tesseract 5 --psm 6", tesseract(6), "tesseract"),
    ("Tesseract 5 --psm 11", tesseract(11), "tesseract"),
    ("Tesseract 5 --psm 6, 1 thread", tesseract(6, threads=1), "tesseract"),
    ("GNU Ocrad", ocrad, "ocrad"),
    ("GOCR", gocr, "gocr"),
]
BASELINE = "RapidOCR as the server runs it"


def measure(read: Callable[[Any], str], keyframes: list[Keyframe], in_process: bool) -> Figures:
    read(keyframes[0].image)  # warm-up: loads the models / the binary into the page cache
    del _children[:]
    times, cpu, scores, spaced = [], [], [], []
    for frame in keyframes:
        for attempt in range(REPEAT):
            began, began_cpu = time.perf_counter(), time.process_time()
            text = read(frame.image)
            times.append(time.perf_counter() - began)
            cpu.append(time.process_time() - began_cpu)
            if not attempt:
                text = " ".join(text.split())
                scores.append(accuracy(text, frame.truth))
                spaced.append(accuracy(text, frame.truth, spaces=True))
    if in_process:
        rss_kb: int | None = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    else:
        cpu = [seconds for seconds, _ in _children]
        peaks = [kb for _, kb in _children if kb is not None]
        rss_kb = max(peaks) if peaks else None
    return Figures(
        ms=median(times) * 1000,
        accuracy=sum(scores) / len(scores),
        accuracy_spaced=sum(spaced) / len(spaced),
        cpu_ms=median(cpu) * 1000,
        rss_mb=rss_kb / 1024 if rss_kb is not None else None,
    )


def _compare(title: str, keyframes: list[Keyframe]) -> None:
    header(f"OCR engines: {title}, {len(keyframes)} keyframes x {REPEAT} reads")
    base = measure(rapidocr_server, keyframes, in_process=True)
    print(
        f"   {BASELINE}: {base.ms:.0f} ms/keyframe, accuracy {base.accuracy:.3f} "
        f"(with spaces {base.accuracy_spaced:.3f}), CPU {base.cpu_ms:.0f} ms/keyframe, "
        f"peak RSS {base.rss_mb:.0f} MB (this whole process)",
        flush=True,
    )
    rows = [(BASELINE, base)]
    for name, read, binary in ENGINES:
        if binary and not shutil.which(binary):
            print(f"   skipped {name}: `{binary}` is not installed ({INSTALL})", flush=True)
            continue
        try:
            mine = measure(read, keyframes, in_process=binary is None)
        except Exception as exc:  # one engine failing must not hide the others
            print(f"   skipped {name}: {type(exc).__name__}: {exc}", flush=True)
            continue
        rows.append((name, mine))
        report(f"{name}: ms/keyframe", mine.ms, "ms", BASELINE, base.ms, higher_is_better=False)
        report(
            f"{name}: accuracy", mine.accuracy, "", BASELINE, base.accuracy, higher_is_better=True
        )
        report(
            f"{name}: accuracy with spaces",
            mine.accuracy_spaced,
            "",
            BASELINE,
            base.accuracy_spaced,
            higher_is_better=True,
        )
        report(
            f"{name}: CPU ms/keyframe",
            mine.cpu_ms,
            "ms",
            BASELINE,
            base.cpu_ms,
            higher_is_better=False,
        )
        if binary:
            peak = f"{mine.rss_mb:.0f} MB" if mine.rss_mb is not None else "n/a (no GNU time)"
            print(f"   {name}: peak RSS {peak} (the command)", flush=True)
    _table(rows, base)


def _table(rows: list[tuple[str, Figures]], base: Figures) -> None:
    """The same figures as a Markdown table (docs/tools/media.md carries one)."""
    print("\n| engine | ms/keyframe | x RapidOCR | CPU ms | accuracy | with spaces | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, f in rows:
        rss = f"{f.rss_mb:.0f}" if f.rss_mb is not None else "n/a"
        print(
            f"| {name} | {f.ms:.0f} | {f.ms / base.ms:.2f} | {f.cpu_ms:.0f} | "
            f"{f.accuracy:.3f} | {f.accuracy_spaced:.3f} | {rss} |",
            flush=True,
        )


def main() -> None:
    print(f"   load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    _compare("lecture fixture 480x270", lecture_keyframes())
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as directory:
        keyframes = video_720_keyframes(Path(directory))
    _compare("bench_media_e2e slides 1280x720", keyframes)
    print(f"   load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
