"""The Coding Train chapter set (tests/eval/codingtrain_chapters.py), read from a site copy
laid out as CodingTrain/thecodingtrain.com lays out its video pages (the fields and nesting
of a real `content/videos/challenges/<n>-<slug>/index.json`, a one-video page and a page
with `parts`; the values are made up here) beside transcripts in the shape of
CodingTrain/coding-train-transcripts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.eval import codingtrain_chapters as ct
from tests.eval import large_corpus

SINGLE = "SSSSSSSSSSS"
PART_ONE = "PPPPPPPPPP1"
PART_TWO = "PPPPPPPPPP2"
NO_TRANSCRIPT = "NNNNNNNNNNN"


def _page(root: Path, folder: str, page: dict) -> None:
    path = root / "content" / "videos" / folder / "index.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(page, indent=2))


def _site(root: Path) -> Path:
    _page(
        root,
        "challenges/900-made-up-sorting",
        {
            "title": "Made-up Sorting",
            "description": "A page shaped like the site's.",
            "videoNumber": "900",
            "videoId": SINGLE,
            "date": "2020-01-01",
            "languages": ["p5.js"],
            "topics": ["sorting"],
            "canContribute": True,
            "relatedChallenges": [],
            "timestamps": [
                {"time": "0:00", "title": "Introduction"},
                {"time": "1;30", "title": "A typo in the time"},
                {"time": "2:00", "title": "Bubble sort explained"},
                {"time": "2:00", "title": "Same start twice"},
                {"time": "5:10", "title": "Swap adjacent elements"},
                {"time": "0:09:00", "title": "Visualize the passes"},
                {"time": "40:00", "title": "After the cut"},
            ],
            "codeExamples": [],
            "groupLinks": [],
        },
    )
    _page(
        root,
        "challenges/901-made-up-parts",
        {
            "title": "Made-up Parts",
            "videoNumber": "901",
            "videoId": PART_ONE,
            "timestamps": [],
            "parts": [
                {
                    "title": "Part 1",
                    "videoId": PART_ONE,
                    "timestamps": [
                        {"time": "00:00", "title": "Welcome back!"},
                        {"time": "00:40", "title": "Random cities on the canvas"},
                        {"time": "03:00", "title": "Shortest path so far"},
                    ],
                },
                {
                    "title": "Part 2",
                    "videoId": PART_TWO,
                    "timestamps": [
                        {"time": "0:00", "title": "Outro"},
                        {"time": "1:00", "title": "Only two chapters"},
                    ],
                },
            ],
        },
    )
    _page(
        root,
        "noc/1-made-up/1-no-transcript",
        {
            "title": "No transcript",
            "videoId": NO_TRANSCRIPT,
            "timestamps": [
                {"time": "0:00", "title": "One"},
                {"time": "1:00", "title": "Two"},
                {"time": "2:00", "title": "Three"},
            ],
        },
    )
    return root


def _transcripts(root: Path) -> Path:
    folder = root / "transcripts"
    folder.mkdir(parents=True)
    for video_id, seconds in ((SINGLE, 3000), (PART_ONE, 400), (PART_TWO, 300)):
        segments = [
            {"start": float(at), "end": float(at + 10), "text": f"words at {at}"}
            for at in range(0, seconds, 10)
        ]
        output = {"detected_language": "english", "segments": segments}
        (folder / f"{video_id}.json").write_text(json.dumps({"output": output}))
    return folder


def test_site_pages_give_chapters_per_video_and_part(tmp_path: Path) -> None:
    videos = {v.video_id: v for v in ct.read_site(_site(tmp_path / "site"))}
    assert set(videos) == {SINGLE, PART_ONE, PART_TWO, NO_TRANSCRIPT}
    single = videos[SINGLE]
    assert [c.start for c in single.chapters] == [0, 120, 310, 540, 2400]
    assert [c.title for c in single.chapters][1] == "Bubble sort explained"
    assert single.chapters[0].end == 120
    assert videos[PART_ONE].page == "challenges/901-made-up-parts#1"


def test_chapter_queries_answer_with_the_span_inside_the_transcript(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    ends = ct.transcript_ends(_transcripts(tmp_path / "ct"))
    videos = ct.usable(ct.read_site(site), ends, cap=1800.0)
    assert {v.video_id for v in videos} == {SINGLE, PART_ONE}
    bounds = dict(ct.boundaries(videos))
    assert bounds[SINGLE] == [120, 310, 540]
    made = list(ct.queries(videos))
    assert [q["query"] for q in made if q["video_id"] == SINGLE] == [
        "Bubble sort explained",
        "Swap adjacent elements",
        "Visualize the passes",
    ]
    last = made[[q["query"] for q in made].index("Visualize the passes")]
    assert (last["second"], last["end"]) == (540, 1800.0)
    assert "Welcome back!" not in {q["query"] for q in made}
    for query in made:
        assert query["channel"] == "coding-train"
        assert query["split"] == (
            "held-out" if large_corpus.held_out(query["video_id"]) else "tune"
        )
        assert query["second"] < query["end"]


def test_export_writes_chapter_queries_and_the_missing_transcripts(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    transcripts = _transcripts(tmp_path / "ct")
    out = tmp_path / "corpus"
    (out / "transcripts").mkdir(parents=True)
    (out / "corpus.json").write_text("{}")
    source = large_corpus.Source(transcripts.parent)
    manifest = large_corpus.export_chapters(site, source, out, {"videos": 0})
    assert manifest["chapter_videos"] == 2
    assert manifest["chapter_only_videos"] == [PART_ONE, SINGLE]
    assert sorted(p.name for p in (out / "transcripts").iterdir()) == [
        f"{PART_ONE}.json",
        f"{SINGLE}.json",
    ]
    lines = (out / "chapter_queries.jsonl").read_text().splitlines()
    assert len(lines) == manifest["chapter_queries"] == 5
    assert json.loads((out / "corpus.json").read_text())["chapter_queries"] == 5
    copied = json.loads((out / "transcripts" / f"{SINGLE}.json").read_text())
    assert max(s["start"] for s in copied["segments"]) < large_corpus.CAP_SECONDS
