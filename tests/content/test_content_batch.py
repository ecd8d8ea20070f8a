"""content_batch_analyze: individual and compare modes against the Gemini stub, per-file
failures, confinement to the readable roots and the blessed gate for local files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.catalog_helpers import VIEWER
from tests.catalog_helpers import call as call_as
from tests.stubs.gemini import QUOTA, error
from tests.video.test_video_tools import Progress, call


@pytest.fixture
def papers_dir(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "alpha.md").write_text("# Alpha\nAlpha says tea is best.")
    (folder / "beta.txt").write_text("Beta says coffee is best.")
    (folder / "gamma.pdf").write_bytes(b"%PDF-1.4 gamma bytes")
    (folder / "image.png").write_bytes(b"\x89PNG not supported")
    (folder / ".hidden.md").write_text("never read")
    return folder


async def test_individual_mode_one_analysis_per_file(gemini_stub, papers_dir):
    progress = Progress()
    outcome = await call(
        "content_batch_analyze",
        {"directory": str(papers_dir), "instruction": "What drink is preferred?"},
        progress,
    )
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert result["mode"] == "individual" and result["total_files"] == 3
    assert result["delivery"] == "direct" and "batch_job" not in result
    assert result["succeeded"] == 3 and result["failed"] == 0
    assert [i["file_name"] for i in result["items"]] == ["alpha.md", "beta.txt", "gamma.pdf"]
    assert all(i["result"]["source_type"] == "file" for i in result["items"])
    assert result["skipped"] == [str(papers_dir.resolve() / "image.png")]
    sent = gemini_stub.calls("generateContent")
    assert len(sent) == 3
    texts = " ".join(r.text for r in sent)
    assert "tea is best" in texts and "coffee is best" in texts and "never read" not in texts
    assert any(r.parts[0].get("inlineData", {}).get("mimeType") == "application/pdf" for r in sent)
    assert [e[0] for e in progress.events][-1] == 3 and progress.events[-1][1] == 3


async def test_a_failing_file_fails_alone(gemini_stub, papers_dir):
    gemini_stub.enqueue("generateContent", *[error(QUOTA, retry_delay="0s")] * 3)
    outcome = await call(
        "content_batch_analyze",
        {
            "file_paths": [
                str(papers_dir / "alpha.md"),
                str(papers_dir / "missing.md"),
                str(papers_dir / "image.png"),
            ],
        },
    )
    # Each failed on its own; since none succeeded, the call is an error listing them.
    assert outcome.result is None and outcome.error is not None
    answer = outcome.error.to_json_dict()
    items = {Path(i["item"]).name: i for i in answer["details"]["failed"]}
    assert items["missing.md"]["category"] == "not_found"
    assert items["image.png"]["category"] == "unsupported_format"
    assert items["alpha.md"]["category"] == "rate_limited"
    assert answer["retryable"] and answer["error"].startswith("Nothing succeeded: all 3 items")


async def test_compare_mode_sends_every_file_in_one_request(gemini_stub, papers_dir):
    outcome = await call(
        "content_batch_analyze",
        {
            "directory": str(papers_dir),
            "glob_pattern": "*.*",
            "mode": "compare",
            "instruction": "Which drink does each prefer?",
        },
    )
    assert outcome.error is None, outcome.error
    result = outcome.result
    assert result["comparison"]["summary"] and result["comparison"]["per_file"]
    assert result["succeeded"] == 3
    (sent,) = gemini_stub.calls("generateContent")
    assert "File: alpha.md" in sent.text and "File: beta.txt" in sent.text
    assert "tea is best" in sent.text and "coffee is best" in sent.text
    schema = sent.generation_config["responseJsonSchema"]
    assert {"similarities", "differences", "per_file"} <= set(schema["properties"])


async def test_compare_needs_two_readable_files(gemini_stub, papers_dir):
    outcome = await call(
        "content_batch_analyze",
        {
            "file_paths": [str(papers_dir / "alpha.md"), str(papers_dir / "nope.md")],
            "mode": "compare",
        },
    )
    assert outcome.error.category == "invalid_input"
    assert "1 of 2" in outcome.error.error
    assert not gemini_stub.calls("generateContent")


async def test_custom_output_schema(gemini_stub, papers_dir):
    schema = {"type": "object", "properties": {"drink": {"type": "string"}}, "required": ["drink"]}
    outcome = await call(
        "content_batch_analyze",
        {"file_paths": [str(papers_dir / "beta.txt")], "output_schema": schema},
    )
    assert outcome.result["items"][0]["result"] == {"drink": "stub drink value"}


async def test_links_out_of_the_roots_fail_alone(gemini_stub, papers_dir, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "secret.md"
    outside.write_text("the owner's secret")
    os.symlink(outside, papers_dir / "link.md")
    outcome = await call(
        "content_batch_analyze", {"directory": str(papers_dir), "glob_pattern": "*.md"}
    )
    items = {i["file_name"]: i for i in outcome.result["items"]}
    assert items["link.md"]["error"]["category"] == "forbidden"
    assert items["alpha.md"]["status"] == "ok"
    assert "secret" not in json.dumps([r.body for r in gemini_stub.calls("generateContent")])


async def test_a_viewer_cannot_have_files_read(gemini_stub, papers_dir):
    outcome = await call_as(
        "content_batch_analyze", {"file_paths": [str(papers_dir / "alpha.md")]}, VIEWER
    )
    assert outcome.error.category == "forbidden" and "'blessed'" in outcome.error.error
    assert not gemini_stub.calls("generateContent")


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"directory": "/tmp", "file_paths": ["/tmp/a.md"]},
        {"file_paths": []},
        {"directory": "/tmp", "glob_pattern": "../*"},
        {"directory": "/tmp", "mode": "merge"},
        {"directory": "/tmp", "delivery": "later"},
        {"file_paths": ["/tmp/a.md"], "max_files": 51},
        {"file_paths": ["/tmp/a.md"], "output_schema": {"type": "array"}},
    ],
)
async def test_bad_input(gemini_stub, arguments):
    outcome = await call("content_batch_analyze", arguments)
    assert outcome.error is not None and outcome.error.category == "invalid_input", outcome.error
    assert not gemini_stub.calls("generateContent")
