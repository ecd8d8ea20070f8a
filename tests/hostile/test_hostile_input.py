"""Edge input, to the catalog and elsewhere, fails alone with a clear error.

catalog_import answered UNKNOWN for a JSON entry nested deeper than the recursion limit
or one CSV cell over 128 KiB, and imported none of the good rows. manifest_url took
javascript:, data:, file: and link-local URLs; NUL went into catalog IDs and titles;
NaN reached min_score (silently no results) and chapter starts.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from tests.catalog_helpers import call, ok
from video_research.support.errors import ErrorCategory

GOOD = {"video_id": "good-1", "title": "A good film", "manifest_url": "https://cdn.example/1.m3u8"}
LATER = {
    "video_id": "good-2",
    "title": "Another film",
    "manifest_url": "https://cdn.example/2.m3u8",
}


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize("wrapped", [False, True])
async def test_a_json_entry_nested_past_the_recursion_limit_fails_alone(tmp_path, wrapped):
    depth = sys.getrecursionlimit() * 20
    deep = f'{{"video_id": "deep", "title": "Deep", "categories": {_deep(depth)}}}'
    rows = f"[{json.dumps(GOOD)}, {deep}, {json.dumps(LATER)}, {_deep(depth)}]"
    text = f'{{"note": {_deep(depth)}, "videos": {rows}}}' if wrapped else rows
    path = tmp_path / "videos.json"
    path.write_text(text)
    result = await ok("catalog_import", {"file_path": str(path)})
    assert result["imported"] == 2 and result["video_ids"] == ["good-1", "good-2"]
    assert [(f["row"], f["video_id"]) for f in result["failed"]] == [(2, "deep"), (4, "")]
    assert all("deeper than" in f["error"] for f in result["failed"])


async def test_rows_that_nest_or_hold_huge_numbers_fail_alone(tmp_path):
    rows = [
        GOOD,
        {"video_id": "nested", "title": "N", "categories": json.loads(_deep(500))},
        {"video_id": "big", "title": "B", "manifest_url": "https://x.example/b"},
        LATER,
    ]
    text = json.dumps(rows).replace(
        '"manifest_url": "https://x.example/b"', '"duration_seconds": ' + "9" * 5000
    )
    path = tmp_path / "videos.json"
    path.write_text(text)
    result = await ok("catalog_import", {"file_path": str(path)})
    assert result["video_ids"] == ["good-1", "good-2"]
    assert [f["row"] for f in result["failed"]] == [2, 3]


async def test_a_huge_csv_cell_fails_its_row_only(tmp_path):
    huge = "x" * (200 * 1024)
    lines = [
        "video_id,title,manifest_url,notes",
        "good-1,A good film,https://cdn.example/1.m3u8,fine",
        f'huge,"{huge}",https://cdn.example/h.m3u8,too long a title',
        f'notes,Long notes,https://cdn.example/n.m3u8,"{huge}"',
        "good-2,Another film,https://cdn.example/2.m3u8,fine",
    ]
    path = tmp_path / "videos.csv"
    path.write_text("\n".join(lines) + "\n")
    result = await ok("catalog_import", {"file_path": str(path)})
    # an unknown column may be long; a title may not
    assert result["video_ids"] == ["good-1", "notes", "good-2"]
    assert [(f["row"], f["video_id"]) for f in result["failed"]] == [(2, "huge")]


@pytest.mark.parametrize(
    "text,says",
    [
        ("[" * 50_000, "never closed"),
        ("{not json", "not valid JSON"),
        ('{"videos": 3}', "no list of videos"),
    ],
)
async def test_whole_file_problems_are_invalid_input(tmp_path, text, says):
    path = tmp_path / "videos.json"
    path.write_text(text)
    outcome = await call("catalog_import", {"file_path": str(path)})
    assert outcome.error is not None and outcome.error.category == ErrorCategory.INVALID_INPUT
    assert says in outcome.error.error


BAD_URLS = [
    "javascript:alert(document.cookie)",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/video.m3u8",
    "http://2852039166/",
    "http://metadata.google.internal/computeMetadata/v1/",
]


@pytest.mark.parametrize("url", BAD_URLS)
async def test_manifest_url_is_http_or_https_to_a_real_host(url):
    outcome = await call("catalog_add", {"video_id": "v1", "title": "T", "manifest_url": url})
    assert outcome.error is not None and outcome.error.category == ErrorCategory.INVALID_INPUT
    assert "manifest_url" in outcome.error.error


async def test_bad_urls_in_an_import_fail_their_rows(tmp_path):
    rows = [GOOD] + [
        {"video_id": f"bad-{i}", "title": "T", "manifest_url": url}
        for i, url in enumerate(BAD_URLS)
    ]
    rows.append({**LATER, "thumbnail_url": "javascript:alert(1)"})
    path = tmp_path / "videos.json"
    path.write_text(json.dumps(rows))
    result = await ok("catalog_import", {"file_path": str(path)})
    assert result["video_ids"] == ["good-1"]
    assert len(result["failed"]) == len(BAD_URLS) + 1
    assert all("http://" in f["error"] or "link-local" in f["error"] for f in result["failed"])
    lan = await ok(
        "catalog_add",
        {"video_id": "lan", "title": "Home server", "manifest_url": "http://192.168.1.20/v.m3u8"},
    )
    assert lan["created"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"video_id": "nul\x00id", "title": "T"},
        {"video_id": "v1", "title": "Title\x00with NUL"},
        {"video_id": "v1", "title": "Bell\x07"},
        {"video_id": "v1", "title": "T", "categories": ["Horror\x00"]},
    ],
)
async def test_control_characters_in_catalog_ids_and_titles_are_refused(arguments):
    outcome = await call("catalog_add", {"manifest_url": "https://cdn.example/v", **arguments})
    assert outcome.error is not None and outcome.error.category == ErrorCategory.INVALID_INPUT


async def test_nul_in_imported_rows_fails_them_and_line_breaks_in_titles_become_spaces(tmp_path):
    rows = [
        {**GOOD, "title": "Two\nlines"},
        {"video_id": "nul\x00", "title": "T", "manifest_url": "https://cdn.example/n"},
        {"video_id": "t", "title": "NUL\x00title", "manifest_url": "https://cdn.example/t"},
    ]
    path = tmp_path / "videos.json"
    path.write_text(json.dumps(rows))
    result = await ok("catalog_import", {"file_path": str(path)})
    assert result["video_ids"] == ["good-1"] and [f["row"] for f in result["failed"]] == [2, 3]
    video = await ok("catalog_get_video", {"video_id": "good-1"})
    assert video["title"] == "Two lines"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
async def test_non_finite_numbers_are_refused_in_every_tool(value):
    searched = await call("document_search", {"query": "lighthouses", "min_score": value})
    assert searched.error is not None and searched.error.category == ErrorCategory.INVALID_INPUT
    assert searched.error.details["errors"][0]["path"] == "$.min_score"
    chapters = await call(
        "index_transcript_files",
        {
            "path": str(Path.cwd()),
            "videos": {"a.vtt": {"chapters": [{"start": value, "title": "Intro"}]}},
        },
    )
    assert chapters.error is not None and chapters.error.category == ErrorCategory.INVALID_INPUT
    assert "finite" in chapters.error.error
