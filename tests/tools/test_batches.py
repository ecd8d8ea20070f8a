"""A batch whose every item failed is an error that lists them (video_research/tools/batches.py)."""

from __future__ import annotations

from tests.calls import call_tool
from video_research.support import contracts
from video_research.tools import batches, dispatch


def _folder(tmp_path, files: dict[str, str]):
    folder = tmp_path / "papers"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


async def test_a_batch_of_only_bad_files_is_an_error_listing_each(tmp_path):
    folder = _folder(tmp_path, {"a.pdf": "not a pdf", "b.docx": "not a docx either"})
    outcome = await call_tool("document_ingest", {"path": str(folder)})
    assert outcome.result is None and outcome.error is not None
    error = outcome.error.to_json_dict()
    assert contracts.validation_errors("common/tool_error.json", error) == []
    assert error["category"] == "invalid_input" and not error["retryable"]
    assert error["error"].startswith("Nothing succeeded: all 2 items failed.")
    items = sorted(f["item"] for f in error["details"]["failed"])
    assert items == [str(folder / "a.pdf"), str(folder / "b.docx")]
    assert all(f["error"] and f["category"] == "invalid_input" for f in error["details"]["failed"])


async def test_one_good_file_keeps_the_batch_a_success(tmp_path):
    folder = _folder(
        tmp_path, {"a.pdf": "not a pdf", "notes.md": "# Tides\n\nThe moon pulls the oceans.\n"}
    )
    outcome = await call_tool("document_ingest", {"path": str(folder)})
    assert outcome.error is None
    assert outcome.result["failed"] == 1 and outcome.result["ingested"] == 1


def test_mixed_failures_take_the_most_common_category_and_any_retry():
    failed = [
        {"item": "a", "error": "e", "category": "network", "hint": "h1", "retryable": True},
        {"item": "b", "error": "e", "category": "not_found", "hint": "h2", "retryable": False},
        {"item": "c", "error": "e", "category": "network", "hint": "h1", "retryable": True},
    ]
    error = batches.every_item_failed(failed).to_tool_error()
    assert error.category == "network" and error.retryable
    assert "details.failed" in error.hint and error.details == {"failed": failed}


def test_many_failures_name_a_few_and_keep_all():
    failed = [
        {"item": f"f{n}", "error": "bad", "category": "not_found", "hint": "", "retryable": False}
        for n in range(9)
    ]
    error = batches.every_item_failed(failed).to_tool_error()
    assert "f4: bad" in error.error and "f5" not in error.error
    assert "4 more in details.failed" in error.error and len(error.details["failed"]) == 9


def test_every_reader_is_a_batch_tool():
    for name in batches.READERS:
        schema = contracts.tool_schema(name, "output")
        assert name in dispatch.TOOLS
        text = str(schema)
        assert "failed" in text, name
