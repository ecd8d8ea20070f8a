"""Progress of the long media calls over a real MCP session: every stage of
index_media_files (probe, speech, its index, scenes, on-screen text, their index) and of
media_screen_text is announced as it starts and heard from at least every 5 s, per file
and overall, as the client's progress callback receives it (timestamps taken there).

The media is made here the way a screen recording is: slides drawn with Pillow, encoded
to H.264 with PyAV, the speech fixture's voice under them as AAC.
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import pytest

from tests.helpers import mcp_client, tool_json

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"
SLIDES = ["Photosynthesis", "Plate Tectonics", "Black Holes"]
SLIDE_SECONDS = 10
FPS = 10
FIRST_WITHIN = 2.0
LONGEST_SILENCE = 5.0


def make_slideshow(target: Path) -> Path:
    """SLIDES, SLIDE_SECONDS each, at 640x360, with the speech fixture's 30 s of speech."""
    import av
    from PIL import Image, ImageDraw, ImageFont

    from video_research.media import speech

    rate = speech.SAMPLE_RATE
    audio = speech.decode_audio(str(FIXTURES / "speech.ogg"), 3600)
    with av.open(str(target), "w") as out:
        video = out.add_stream("libx264", rate=FPS)
        video.width, video.height, video.pix_fmt = 640, 360, "yuv420p"
        video.options = {"preset": "ultrafast", "tune": "stillimage"}
        sound = out.add_stream("aac", rate=rate)
        sound.layout = "mono"
        for n, title in enumerate(SLIDES):
            image = Image.new("RGB", (640, 360), (30 + 60 * n, 60, 110))
            draw = ImageDraw.Draw(image)
            draw.text((60, 140), title, fill=(255, 255, 255), font=ImageFont.load_default(size=48))
            frame = av.VideoFrame.from_image(image).reformat(format="yuv420p")
            for k in range(SLIDE_SECONDS * FPS):
                frame.pts = n * SLIDE_SECONDS * FPS + k
                frame.time_base = Fraction(1, FPS)
                out.mux(video.encode(frame))
            piece = audio[n * SLIDE_SECONDS * rate : (n + 1) * SLIDE_SECONDS * rate]
            samples = av.AudioFrame.from_ndarray(piece.reshape(1, -1), format="flt", layout="mono")
            samples.sample_rate = rate
            samples.pts = n * SLIDE_SECONDS * rate
            samples.time_base = Fraction(1, rate)
            out.mux(sound.encode(samples))
        out.mux(video.encode(None))
        out.mux(sound.encode(None))
    return target


@pytest.fixture
def slideshow(tmp_path) -> Path:
    folder = tmp_path / "recordings"
    folder.mkdir()
    return make_slideshow(folder / "science_slides.mp4")


class Heard:
    """The client's progress callback: (seconds since the call was sent, progress, total,
    message) per notification."""

    def __init__(self) -> None:
        self.began = time.perf_counter()
        self.events: list[tuple[float, float, float | None, str]] = []

    def start(self) -> None:
        self.began = time.perf_counter()
        self.events.clear()

    async def __call__(self, done: float, total: float | None, message: str | None) -> None:
        self.events.append((time.perf_counter() - self.began, done, total, message or ""))

    def check(self, ended: float) -> None:
        """The first notification within FIRST_WITHIN s, no silence over LONGEST_SILENCE s
        (to the result too), progress increasing."""
        for at, done, total, message in self.events:  # shown when the test fails (or -s)
            print(f"{at:6.2f} s  {done:.4f}/{total}  {message}")
        print(f"{ended:6.2f} s  the result")
        times = [at for at, *_ in self.events]
        assert times and times[0] <= FIRST_WITHIN, self.events[:3]
        silences = [
            later - earlier for earlier, later in zip(times, [*times[1:], ended], strict=True)
        ]
        worst = max(range(len(silences)), key=silences.__getitem__)
        assert silences[worst] <= LONGEST_SILENCE, (
            f"{silences[worst]:.1f} s of silence after {self.events[worst]}"
        )
        values = [done for _, done, _, _ in self.events]
        assert values == sorted(set(values)), values

    def stages(self, names: list[str]) -> list[str]:
        """Which of `names` the messages went through, in the order first heard (a name is
        heard when a message has ' <name>:' or starts with '<name>:')."""
        heard: list[str] = []
        for *_, message in self.events:
            for name in names:
                if (f" {name}:" in message or message.startswith(f"{name}:")) and (
                    name not in heard
                ):
                    heard.append(name)
        return heard


async def test_every_stage_reports_within_2_s_and_at_least_every_5_s(server_env, slideshow):
    heard = Heard()
    async with mcp_client(server_env) as client:
        heard.start()
        indexed = await client.call_tool(
            "index_media_files", {"paths": [str(slideshow.parent)]}, progress_callback=heard
        )
        ended = time.perf_counter() - heard.began
        assert not indexed.is_error, tool_json(indexed)
        result = indexed.structured_content
        assert result["transcribed_count"] == 1 and result["screen_chunk_count"] >= 1, result
        heard.check(ended)
        # the pictures first: their scene cuts bound the speech's moments
        stages = ["probe", "scenes", "screen text", "index screen text", "speech", "index speech"]
        assert heard.stages(stages) == stages, heard.events
        # per file and overall: each stage names the file and its place; the total is the
        # item count, and the file's step ends at 1
        staged = [m for *_, m in heard.events if "(1/1)" in m]
        assert staged and all(m.startswith("science_slides.mp4 (1/1)") for m in staged)
        assert all(total == 1 for _, _, total, _ in heard.events if total is not None)
        assert heard.events[-1][1] == 1
        assert any("% of 0:30 transcribed" in m for *_, m in heard.events)

        heard.start()
        read = await client.call_tool(
            "media_screen_text",
            {"path": str(slideshow), "sample_seconds": 5, "index": True},
            progress_callback=heard,
        )
        ended = time.perf_counter() - heard.began
        assert not read.is_error, tool_json(read)
        texts = [span["text"] for span in read.structured_content["spans"]]
        assert any("Tectonics" in text for text in texts), texts
        heard.check(ended)
        stages = ["probe", "scenes", "on-screen text", "index"]
        assert heard.stages(stages) == stages, heard.events
        assert all(total == 100 for _, _, total, _ in heard.events if total is not None)
