"""Transcript files: WebVTT (plain and YouTube's rolling auto-captions), SRT and JSON
segment lists, on files written for the tests and on real transcripts from the shared
data folder (3blue1brown .srt, Coding Train .json, a YouTube auto-caption .vtt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import DATA, shared_data
from video_research.transcripts import parsers
from video_research.transcripts.chunker import Chapter, parse_chapters
from video_research.transcripts.parsers import (
    TranscriptFormatError,
    parse_file,
    parse_json,
    parse_srt,
    parse_stamped_text,
    parse_vtt,
)
from video_research.transcripts.sources import identify, read_file

OWN = DATA / "transcripts"
SOURDOUGH_VTT = OWN / "vtt" / "Baking a country sourdough loaf [bAk3rY_0001].en.vtt"
SHARED = shared_data()
SHARED_TRANSCRIPTS = SHARED / "transcripts" if SHARED else None
needs_shared = pytest.mark.skipif(
    SHARED_TRANSCRIPTS is None or not SHARED_TRANSCRIPTS.is_dir(),
    reason="the shared data folder (../shared/data/transcripts) is not present; "
    "its real transcripts are local-only and not in the repository",
)


def test_rolling_youtube_vtt_keeps_each_line_once():
    cues = parse_file(SOURDOUGH_VTT).cues
    assert len(cues) == 24
    assert cues[0].text == "Welcome back to the kitchen, today we are baking a country loaf."
    assert cues[1].text == "The starter has been fed twice since yesterday morning."
    assert (cues[20].start, cues[20].text) == (
        200.0,
        "The hardest part is waiting at least an hour before you cut it.",
    )
    assert all("<" not in cue.text for cue in cues)


YT_DLP_WORD_TIMED = """WEBVTT
Kind: captions
Language: en

00:00:00.080 --> 00:00:02.110 align:start position:0%
\x20
hi<00:00:00.399><c> everyone</c>

00:00:02.110 --> 00:00:02.120 align:start position:0%
hi everyone
\x20

00:00:02.120 --> 00:00:05.030 align:start position:0%
hi everyone
welcome<00:00:02.480><c> to</c><00:00:02.700><c> the</c><00:00:02.900><c> show</c>

00:00:05.030 --> 00:00:05.040 align:start position:0%
welcome to the show
\x20
"""


def test_a_line_of_spaces_does_not_end_a_vtt_cue():
    """yt-dlp's word-timed auto captions start a cue with a line of one space; WebVTT
    ends a cue only at an empty line, so the words after it belong to the cue."""
    assert "\n \nhi<" in YT_DLP_WORD_TIMED
    cues = parse_vtt(YT_DLP_WORD_TIMED).cues
    assert [(c.start, c.text) for c in cues] == [
        (0.08, "hi everyone"),
        (2.12, "welcome to the show"),
    ]
    # SRT has no such lines: a line of spaces still ends a block there
    srt = parse_srt(
        "1\n00:00:01,000 --> 00:00:02,000\nfirst\n  \n2\n00:00:03,000 --> 00:00:04,000\nsecond\n"
    )
    assert [c.text for c in srt.cues] == ["first", "second"]


def test_vtt_reads_language_header_and_plain_cues():
    parsed = parse_file(OWN / "vtt" / "rUsTbOrRoW1.vtt")
    assert parsed.metadata == {"language": "en"}
    assert [(c.start, c.end) for c in parsed.cues[:2]] == [(0.0, 11.8), (12.0, 23.8)]


def test_srt_and_vtt_of_the_same_talk_agree():
    srt = parse_file(OWN / "rust_borrowing.srt").cues
    vtt = parse_file(OWN / "vtt" / "rUsTbOrRoW1.vtt").cues
    assert srt == vtt


def test_json_segment_shapes():
    with_duration = parse_file(OWN / "tides.json")
    assert with_duration.metadata == {
        "video_id": "tIdEs_42xyz",
        "title": "How tides make electricity",
        "language": "en",
    }
    assert (
        with_duration.cues
        == parse_file(OWN / "vtt" / "How tides make electricity [tIdEs_42xyz].en.vtt").cues
    )
    whisper = parse_file(OWN / "sourdough_whisper.json").cues
    assert whisper[0].text.startswith("Welcome back")  # leading space stripped
    assert [c.text for c in whisper] == [c.text for c in parse_file(SOURDOUGH_VTT).cues]


def test_markup_and_entities_are_removed():
    parsed = parse_vtt(
        "WEBVTT\n\nNOTE a comment\n\n1\n00:01.000 --> 00:02.500 line:0\n"
        "<v Roger>Tom &amp; <i>Jerry</i></v>\n\n00:03.000 --> 00:04.000\n{\\an8}top\n"
    )
    assert [(c.start, c.end, c.text) for c in parsed.cues] == [
        (1.0, 2.5, "Tom & Jerry"),
        (3.0, 4.0, "top"),
    ]


@pytest.mark.parametrize(
    "parser, content, message",
    [
        (parse_vtt, "1\n00:00:01,000 --> 00:00:02,000\nhi\n", "WEBVTT"),
        (parse_srt, "just some words", "timing"),
        (parse_json, "{not json", "not JSON"),
        (parse_json, '{"items": []}', "segments"),
        (parse_json, '[{"text": "hi"}]', "start"),
        (parse_json, '[{"text": "hi", "start": -1}]', "non-negative"),
        (parse_json, '[{"start": 1}]', "text"),
    ],
)
def test_malformed_files_say_what_is_wrong(parser, content, message):
    with pytest.raises(TranscriptFormatError, match=message):
        parser(content)


def test_unsupported_and_binary_files(tmp_path):
    (tmp_path / "a.docx").write_text("hello")
    with pytest.raises(TranscriptFormatError, match="unsupported"):
        parse_file(tmp_path / "a.docx")
    (tmp_path / "a.txt").write_text("hello, no times here")
    with pytest.raises(TranscriptFormatError, match="no timestamps"):
        parse_file(tmp_path / "a.txt")
    (tmp_path / "b.srt").write_bytes(b"1\n00:00:01,000 --> 00:00:02,000\ncaf\xe9\n")
    with pytest.raises(TranscriptFormatError, match="UTF-8"):
        parse_file(tmp_path / "b.srt")
    (tmp_path / "c.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    with pytest.raises(TranscriptFormatError, match="binary"):
        parse_file(tmp_path / "c.txt")


@pytest.mark.parametrize(
    "name, expected",
    [
        (
            "Baking bread [bAk3rY_0001].en.vtt",
            {"video_id": "bAk3rY_0001", "title": "Baking bread", "language": "en"},
        ),
        (
            "Talk [dQw4w9WgXcQ].en-US.srt",
            {"video_id": "dQw4w9WgXcQ", "title": "Talk", "language": "en-US"},
        ),
        ("dQw4w9WgXcQ.de.vtt", {"video_id": "dQw4w9WgXcQ", "language": "de"}),
        ("-z5lKPHcumo.vtt", {"video_id": "-z5lKPHcumo"}),
        # A YouTube id may begin or end with "_": it is kept whole (3Blue1Brown's
        # _UoTTq651dE was indexed as UoTTq651dE, a video no link could open).
        ("_UoTTq651dE.srt", {"video_id": "_UoTTq651dE"}),
        ("_UoTTq651dE.en.vtt", {"video_id": "_UoTTq651dE", "language": "en"}),
        ("abcdefghij_.json", {"video_id": "abcdefghij_"}),
        ("lecture 3 (final).srt", {"video_id": "lecture_3_final"}),
        ("notes.v2.json", {"video_id": "notes.v2"}),
    ],
)
def test_file_names_identify_the_video(name, expected):
    assert identify(Path(name)) == expected


def test_read_file_prefers_the_files_own_video_id():
    transcript = read_file(OWN / "tides.json")
    assert transcript.video_id == "tIdEs_42xyz"
    assert transcript.source == "file" and transcript.language == "en"
    assert transcript.metadata["title"] == "How tides make electricity"


def test_chapters_from_a_description():
    description = (
        "In this video we bake.\n\nChapters:\n0:00 Intro\n1:05 - Mixing\n(12:30) Shaping the loaf\n"
        "Baking | 1:02:03\nnot a chapter 5:00 in the middle of a line\n"
    )
    said = ("author", ("description",))  # the author's, read from the description
    assert parse_chapters(description) == [
        Chapter(0.0, "Intro", *said),
        Chapter(65.0, "Mixing", *said),
        Chapter(750.0, "Shaping the loaf", *said),
        Chapter(3723.0, "Baking", *said),
    ]
    long = parse_chapters(f"0:00 Intro\n1:00 {'word ' * 100}")
    assert len(long[1].title) <= 300 and long[1].title.startswith("word word")
    assert parse_chapters("1:00 starts late\n2:00 second") == []
    assert parse_chapters("0:00 only one") == []
    assert parse_chapters(None) == []


@needs_shared
def test_real_youtube_auto_caption_vtt():
    parsed = parse_file(SHARED_TRANSCRIPTS / "-z5lKPHcumo.vtt")
    texts = [c.text for c in parsed.cues]
    assert parsed.metadata["language"] == "en"
    assert texts[:3] == [
        "in this video we'll see a more general",
        "algorithm for performing inference in",
        "general conditional random fields known",
    ]
    assert len(texts) == len(set(texts)), "rolling captions must not repeat lines"


@needs_shared
def test_real_srt_and_json_samples_parse_in_order():
    files = sorted((SHARED_TRANSCRIPTS / "3blue1brown").glob("*.srt")) + sorted(
        (SHARED_TRANSCRIPTS / "coding-train").glob("*.json")
    )
    assert files
    for path in files:
        cues = parse_file(path).cues
        assert cues, path
        assert all(a.start <= b.start for a, b in zip(cues, cues[1:], strict=False)), path
        assert all(c.end >= c.start and c.text and "\n" not in c.text for c in cues), path
    euler = parse_file(SHARED_TRANSCRIPTS / "3blue1brown" / "-9OUyo8NFZg.srt").cues
    assert euler[0].start == 3.3 and "Euler's characteristic formula" in euler[0].text
    promises = read_file(SHARED_TRANSCRIPTS / "coding-train" / "01RTj1MWec0.json")
    assert promises.video_id == "01RTj1MWec0"
    assert promises.metadata["channel_title"] == "The Coding Train"


# ----------------------------------------------------------------------------- more formats

FORMATS = OWN / "formats"


def _read(name: str):
    from video_research.transcripts.sources import sidecar_name

    path = FORMATS / name
    sidecar = path.with_name(sidecar_name(path) or "-")
    return read_file(path, sidecar=sidecar if sidecar.is_file() else None)


def test_markdown_podcast_with_front_matter_and_minute_paragraphs():
    podcast = _read("Truing a bicycle wheel - the shop talk podcast.md")
    assert podcast.video_id == "pOdCaSt_003"  # from the url in the front matter
    assert podcast.language == "en"
    meta = podcast.metadata
    assert meta["title"] == "Truing a bicycle wheel: the shop talk podcast, episode 12"
    assert meta["channel_title"] == "Shop Talk Cycling"
    assert meta["published_at"].startswith("2024-03-12")
    assert meta["chapters"] == [
        {"start": 0.0, "title": "Why wheels go out of true"},
        {"start": 120.0, "title": "Tools you need"},
        {"start": 240.0, "title": "Making the adjustment"},
    ]
    starts = [cue.start for cue in podcast.cues]
    assert starts == [0.0, 60.0, 120.0, 180.0, 240.0, 300.0, 360.0]
    assert [cue.end for cue in podcast.cues[:-1]] == starts[1:]
    assert podcast.cues[-1].end > 360.0
    assert podcast.cues[4].text.startswith("Here is the rule that confuses everyone")
    assert "Notes and transcript" not in " ".join(c.text for c in podcast.cues)


@pytest.mark.parametrize(
    "line, start, text",
    [
        ("[00:01:05] words here", 65.0, "words here"),
        ("[1:05] words", 65.0, "words"),
        ("**[01:00:05]** bold stamp", 3605.0, "bold stamp"),
        ("[12:34](https://youtu.be/x?t=754) linked stamp", 754.0, "linked stamp"),
        ("(12:34) in parentheses", 754.0, "in parentheses"),
        ("00:01:05 - dashed", 65.0, "dashed"),
        ("1:05 – en dash", 65.0, "en dash"),
        ("- [00:00:07] a list item", 7.0, "a list item"),
        ("**Ana** [00:02:00]: hello there", 120.0, "Ana: hello there"),
        ("Ben (0:42) speaking now", 42.0, "Ben: speaking now"),
    ],
)
def test_paragraph_stamp_shapes(line, start, text):
    cues = parse_stamped_text(f"{line}\n").cues
    assert [(c.start, c.text) for c in cues] == [(start, text)]


def test_stamped_text_keeps_continuation_lines_and_strips_markdown():
    parsed = parse_stamped_text(
        "00:00:01\nA stamp alone, then the words\non two lines.\n\n"
        "[00:00:09] With a [link](https://example.com) and **bold** and &amp; &nbsp;entities.\n"
        "[00:00:05] Out of order comes first.\n"
    )
    assert [(c.start, c.text) for c in parsed.cues] == [
        (1.0, "A stamp alone, then the words on two lines."),
        (5.0, "Out of order comes first."),
        (9.0, "With a link and bold and & entities."),
    ]
    assert all(c.end >= c.start for c in parsed.cues)


def test_youtube_srv3_json3_and_ttml():
    bees = _read("Beekeeping in winter [bEeKeEp_001].en.srv3")
    assert (bees.video_id, bees.language, bees.metadata["title"]) == (
        "bEeKeEp_001",
        "en",
        "Beekeeping in winter",
    )
    assert bees.cues[1] == parsers.Cue(
        4.2,
        9.8,
        "The workers gather into a tight ball around the queen, called the winter cluster.",
    )
    texts = [c.text for c in bees.cues]
    assert texts[2].startswith(">> Bees on the outside")  # &gt;&gt; decoded
    assert "slowly across" in texts[5]  # &nbsp; is a space

    stars = _read("Night sky photography [nIgHtSkY_02].en.json3")
    assert len(stars.cues) == 8 and stars.cues[0].start == 0.12
    assert (
        stars.cues[3].text == "the five hundred rule says divide five hundred by your focal length"
    )
    assert all("\n" not in c.text for c in stars.cues)

    tea = _read("Tea ceremony basics [tEaCeReMo_5].en.ttml")
    assert (
        tea.cues[1].text
        == "Before the guests arrive, the host sweeps the path and sprinkles water on the stones."
    )
    assert (tea.cues[0].start, tea.cues[0].end) == (0.5, 5.0)
    # the yt-dlp .info.json beside it: channel, date, url and chapters
    assert tea.metadata["channel_title"] == "Quiet Kitchen"
    assert tea.metadata["published_at"].startswith("2023-09-18")
    assert [c["title"] for c in tea.metadata["chapters"]] == [
        "Preparing the garden",
        "Making and drinking the tea",
    ]


def test_whisper_tsv_and_other_languages():
    volcano = _read("volcano_lecture.tsv")
    assert volcano.video_id == "volcano_lecture"
    assert (volcano.cues[1].start, volcano.cues[1].end) == (4.2, 9.8)
    assert volcano.cues[0].text == "Good morning, today's lecture is about how volcanoes erupt."
    huerto = _read("Huerto urbano en el balcón [hUeRtOuRb_6].es.md")
    assert huerto.language == "es" and huerto.metadata["channel_title"] == "Verde en Casa"
    assert [c.start for c in huerto.cues][:3] == [0.0, 25.0, 52.0]
    kette = _read("Fahrradkette wechseln [fAhRrAdKe_7].de.txt")
    assert kette.language == "de" and kette.cues[2].start == 44.0


@pytest.mark.parametrize(
    "content, fmt",
    [
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nhi\n", "vtt"),
        ("1\n00:00:01,000 --> 00:00:02,000\nhi\n", "srt"),
        ('[{"text": "hi", "start": 1, "duration": 1}]', "json"),
        ('{"events": [{"tStartMs": 1000, "dDurationMs": 500, "segs": [{"utf8": "hi"}]}]}', "json3"),
        ('<timedtext format="3"><body><p t="1000" d="500">hi</p></body></timedtext>', "srv"),
        ('<transcript><text start="1" dur="0.5">hi</text></transcript>', "srv"),
        (
            '<tt xmlns="http://www.w3.org/ns/ttml"><body><div><p begin="1s" end="1.5s">hi</p></div></body></tt>',
            "ttml",
        ),
        ("start\tend\ttext\n1000\t1500\thi\n", "tsv"),
        ("[00:00:01] hi\n", "text"),
    ],
)
@pytest.mark.parametrize("suffix", [".txt", ".json", ".xml"])
def test_ambiguous_suffixes_are_read_by_content(content, fmt, suffix):
    parsed = parsers.parse_content(content, suffix)
    assert parsed.format == fmt
    assert [(c.start, c.text) for c in parsed.cues] == [(1.0, "hi")]


@pytest.mark.parametrize(
    "content, message",
    [
        (
            '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>'
            '<transcript><text start="0">&lol2;</text></transcript>',
            "DTD or entity",
        ),
        (
            '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
            '<transcript><text start="0">&xxe;</text></transcript>',
            "DTD or entity",
        ),
        ("<transcript><text start='0'>unclosed", "not XML"),
        ("<html><body>hi</body></html>", "root element is <html>"),
        ('<tt><body><p begin="soon">x</p></body></tt>', "TTML time"),
    ],
)
def test_xml_is_parsed_safely(content, message):
    with pytest.raises(TranscriptFormatError, match=message):
        parsers.parse_timedtext(content)


def test_markup_is_decoded_in_every_format():
    for content, suffix in [
        ("WEBVTT\n\n00:01.000 --> 00:02.000\n&gt;&gt; Tom &amp; <i>Jerry</i>&nbsp;!\n", ".vtt"),
        ("1\n00:00:01,000 --> 00:00:02,000\n&gt;&gt; Tom &amp; <i>Jerry</i>&nbsp;!\n", ".srt"),
        ('[{"text": "&gt;&gt; Tom &amp; <i>Jerry</i>&nbsp;!", "start": 1}]', ".json"),
        ("start\tend\ttext\n1000\t2000\t&gt;&gt; Tom &amp; <i>Jerry</i>&nbsp;!\n", ".tsv"),
        ("[00:00:01] &gt;&gt; Tom &amp; <i>Jerry</i>&nbsp;!\n", ".md"),
        (
            '<transcript><text start="1">&amp;gt;&amp;gt; Tom &amp;amp; &lt;i&gt;Jerry&lt;/i&gt;&amp;nbsp;!</text></transcript>',
            ".srv1",
        ),
    ]:
        cues = parsers.parse_content(content, suffix).cues
        assert [c.text for c in cues] == [">> Tom & Jerry !"], suffix


def test_front_matter_is_read_safely():
    levels = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for n in range(1, 9):
        levels.append(
            f"l{n}: &l{n} [" + ", ".join([f"*{'a' if n == 1 else f'l{n - 1}'}"] * 9) + "]"
        )
    bomb = "---\n" + "\n".join(levels) + "\ntitle: Safe title\nurl: javascript:alert(1)\n---\n"
    parsed = parsers.parse_content(bomb + "[00:00:01] hi\n", ".md")
    assert parsed.metadata == {"title": "Safe title"}  # no alias expanded, no script link
    tagged = "---\ntitle: !!python/object/apply:os.system ['echo hi']\nchannel: Ok\n---\n"
    assert (
        parsers.parse_content(tagged + "[00:00:01] hi\n", ".md").metadata["channel_title"] == "Ok"
    )
