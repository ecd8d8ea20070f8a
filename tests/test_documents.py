"""Document knowledge (issue 6, seed 003): real PDFs, DOCX, PPTX, HTML and Markdown files
through extraction, chunking, the real store and embeddings, and the four document tools."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from tests.fixtures.documents import (
    OWNER,
    REPORT_PAGES,
    call_error,
    call_tool,
    make_docx,
    make_notes,
    make_pdf,
)
from tests.helpers import DATA
from video_research.context import CallContext
from video_research.documents import library
from video_research.documents.chunking import chunk_blocks, heading_text
from video_research.documents.extract import DocumentType, extract, parse_markdown
from video_research.knowledge.embeddings import count_tokens
from video_research.knowledge.filters import Filter
from video_research.knowledge.store import get_store

SAMPLES = DATA / "documents"


def _within_budget(chunks, budget):
    for chunk in chunks:
        heading = count_tokens(heading_text(chunk.heading_path)) if chunk.heading_path else 0
        assert chunk.token_count + heading <= budget, (chunk.token_count, heading, chunk.text[:80])


# ------------------------------------------------------------------ extraction and chunking
def test_markdown_chunks_follow_headings_and_types():
    markdown = (SAMPLES / "release-notes.md").read_text()
    chunks = chunk_blocks(list(parse_markdown(markdown)), 200)
    by_type = {chunk.chunk_type: chunk for chunk in chunks}
    assert set(by_type) == {"text", "list", "code", "table"}
    assert by_type["code"].heading_path == ["Release notes", "Configuration"]
    assert "refresh_seconds: 300" in by_type["code"].text
    assert by_type["table"].heading_path == ["Release notes", "Known issues"]
    assert by_type["list"].text.count("\n") == 2, "three list items in one chunk"
    migration = [c for c in chunks if c.heading_path[-1:] == ["Migration"]]
    assert migration and "rebuild the route cache" in migration[0].text
    assert all(c.page is None for c in chunks)


def test_oversized_sections_split_within_the_token_budget():
    rows = "\n".join(f"| station {i} | reading {i * 7} millimetres |" for i in range(120))
    markdown = (
        "# Climate\n\n## Rainfall\n\n"
        + " ".join(f"Sentence number {i} describes the rainfall gauge." for i in range(150))
        + "\n\n## Stations\n\n| Station | Reading |\n|---|---|\n"
        + rows
        + "\n\n## Words\n\n"
        + "pneumonoultramicroscopicsilicovolcanoconiosis " * 80
    )
    budget = 64
    chunks = chunk_blocks(list(parse_markdown(markdown)), budget)
    _within_budget(chunks, budget)
    tables = [c for c in chunks if c.chunk_type == "table"]
    assert len(tables) > 3
    assert all(t.text.startswith("| Station | Reading |\n|---|---|\n| station") for t in tables)
    assert sum(t.text.count("| station ") for t in tables) == 120, "no row lost or repeated"
    rainfall = [c for c in chunks if c.heading_path == ["Climate", "Rainfall"]]
    assert len(rainfall) > 5
    assert all(c.text.endswith(".") for c in rainfall), "text is cut between sentences"


def test_pdf_blocks_know_their_page_and_heading(tmp_path):
    pdf = make_pdf(tmp_path / "report.pdf", REPORT_PAGES)
    extracted = extract(pdf.read_bytes(), DocumentType.PDF, pdf.name)
    assert extracted.page_count == 3
    assert extracted.title == "Quarterly report"
    chunks = chunk_blocks(extracted.blocks, 200)
    where = {c.text: (c.page, c.heading_path) for c in chunks}
    assert where["Raw frames were bias subtracted and flat fielded before extraction."] == (
        2,
        ["Methods", "Data reduction"],
    )
    assert where["The eclipsing binary showed a primary eclipse depth of 0.8 magnitudes."] == (
        3,
        ["Results", "Light curves"],
    )
    assert not any("Quarterly report - page" in c.text for c in chunks), "running footer dropped"


def test_pptx_slides_are_pages_and_reset_headings():
    data = (SAMPLES / "deck.pptx").read_bytes()
    extracted = extract(data, DocumentType.PPTX, "deck.pptx")
    chunks = chunk_blocks(extracted.blocks, 200, page_breaks=extracted.pages_with_breaks)
    table = next(c for c in chunks if c.chunk_type == "table")
    assert (table.page, table.heading_path) == (3, ["Sensor budget"])
    warning = next(c for c in chunks if "Orange" in c.text)
    assert (warning.page, warning.heading_path) == (2, ["Eruption warning levels"])


# ------------------------------------------------------------------ the tools, in process
async def test_ingest_folder_then_search_cites_page_and_heading(library_dir):
    report = await call_tool("document_ingest", {"path": str(library_dir)})
    assert (report["ingested"], report["failed"], report["files_found"]) == (2, 0, 2)
    by_name = {Path(f["path"]).name: f for f in report["files"]}
    assert by_name["report.pdf"]["pages"] == 3 and by_name["report.pdf"]["document_type"] == "pdf"
    assert by_name["handbook.docx"]["document_type"] == "docx"

    found = await call_tool("document_search", {"query": "How is the spectrograph calibrated?"})
    top = found["results"][0]
    assert top["text"].startswith("We calibrated the spectrograph every night")
    assert (top["page"], top["heading_path"]) == (2, ["Methods", "Telescope setup"])
    assert top["citation"] == "report.pdf, p. 2, Methods > Telescope setup"

    found = await call_tool("document_search", {"query": "when are travel expenses reimbursed"})
    top = found["results"][0]
    assert "thirty days" in top["text"]
    assert top["heading_path"] == ["Onboarding", "Expense policy"] and top["page"] is None
    assert top["citation"] == "handbook.docx, Onboarding > Expense policy"


async def test_reingesting_an_unchanged_file_does_nothing(library_dir):
    first = await call_tool("document_ingest", {"path": str(library_dir), "tags": ["astro"]})
    store = await get_store()
    before = await store.fetch(library.COLLECTION, limit=100)
    again = await call_tool("document_ingest", {"path": str(library_dir), "tags": ["astro"]})
    assert (again["unchanged"], again["ingested"], again["chunks_written"]) == (2, 0, 0)
    after = await store.fetch(library.COLLECTION, limit=100)
    assert [(o.uuid, o.properties["created_at"]) for o in after.objects] == [
        (o.uuid, o.properties["created_at"]) for o in before.objects
    ]
    assert [f["document_id"] for f in again["files"]] == [f["document_id"] for f in first["files"]]

    retagged = await call_tool("document_ingest", {"path": str(library_dir), "tags": ["space"]})
    assert retagged["updated"] == 2, "other tags are a change"
    forced = await call_tool(
        "document_ingest", {"path": str(library_dir), "tags": ["space"], "force": True}
    )
    assert forced["updated"] == 2


async def test_a_changed_file_replaces_all_its_chunks(library_dir):
    await call_tool("document_ingest", {"path": str(library_dir)})
    handbook = library_dir / "handbook.docx"
    make_docx(handbook, [(1, "Parking", "Bicycles are stored in the basement cage.")])
    result = await call_tool("document_ingest", {"paths": [str(handbook)]})
    assert result["files"][0]["status"] == "updated" and result["files"][0]["chunks"] == 1

    store = await get_store()
    stored = await store.count(library.COLLECTION, Filter.eq("source_path", str(handbook)))
    assert stored == 1
    stale = await call_tool("document_search", {"query": "reimbursed receipts", "alpha": 0})
    assert all(r["file_name"] != "handbook.docx" for r in stale["results"])
    fresh = await call_tool("document_search", {"query": "bicycles basement", "alpha": 0})
    assert fresh["results"][0]["heading_path"] == ["Parking"]


async def test_sample_files_and_per_file_errors(tmp_path):
    folder = tmp_path / "samples"
    shutil.copytree(SAMPLES, folder)
    (folder / "notes.odt").write_bytes(b"not supported")
    (folder / ".hidden.md").write_text("# Secret\n\nnever read")
    report = await call_tool("document_ingest", {"path": str(folder)})
    status = {Path(f["path"]).name: f for f in report["files"]}
    for name in ("field-guide.html", "release-notes.md", "deck.pptx"):
        assert status[name]["status"] == "ingested", status[name]
    assert status["deck.pptx"]["pages"] == 3
    assert status["field-guide.html"]["title"] == "Birdwatching Field Guide"
    encrypted = status["encrypted.pdf"]["error"]
    assert encrypted["category"] == "invalid_input" and "encrypted" in encrypted["error"]
    assert "password" in encrypted["hint"]
    for name in ("corrupt.pdf", "corrupt.docx"):
        assert status[name]["status"] == "failed"
        assert status[name]["error"]["category"] == "invalid_input"
        assert "could not be read" in status[name]["error"]["error"]
    assert report["failed"] == 3 and report["skipped_unsupported"] >= 1
    assert ".hidden.md" not in status

    table = await call_tool(
        "document_search",
        {
            "query": "sensor cost seismometer",
            "filters": {"chunk_type": "table", "document_type": "pptx"},
        },
    )
    assert table["results"][0]["citation"] == "deck.pptx, slide 3, Sensor budget"
    html = await call_tool("document_search", {"query": "which binoculars should I buy"})
    assert html["results"][0]["heading_path"] == ["Birdwatching Field Guide", "Equipment"]
    chrome = await call_tool("document_search", {"query": "Society", "alpha": 0})
    assert chrome["results"] == [], "page footer and navigation are not indexed"


async def test_unsupported_explicit_file_and_type_override(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("# Recipes\n\n## Bread\n\nKnead the dough for ten minutes.\n")
    odd = tmp_path / "data.xyz"
    odd.write_text("whatever")
    report = await call_tool("document_ingest", {"paths": [str(notes), str(odd)]})
    assert report["files"][1]["error"]["category"] == "invalid_input"
    assert "unsupported file type" in report["files"][1]["error"]["error"]
    as_text = await call_tool("document_search", {"query": "knead dough"})
    assert as_text["results"][0]["heading_path"] == []

    await call_tool("document_ingest", {"path": str(notes), "document_type": "markdown"})
    as_markdown = await call_tool("document_search", {"query": "knead dough"})
    assert as_markdown["results"][0]["heading_path"] == ["Recipes", "Bread"]
    assert as_markdown["results"][0]["document_type"] == "markdown"


async def test_search_filters(library_dir, tmp_path):
    await call_tool("document_ingest", {"path": str(library_dir), "tags": ["work"]})
    sibling = tmp_path / "library-old"
    sibling.mkdir()
    make_docx(sibling / "old.docx", [(1, "Expense policy", "Expenses were reimbursed yearly.")])
    await call_tool("document_ingest", {"path": str(sibling), "tags": ["archive"]})

    async def files(filters):
        found = await call_tool(
            "document_search", {"query": "expenses reimbursed", "k": 20, "filters": filters}
        )
        return {r["file_name"] for r in found["results"]}

    assert await files({"path_prefix": str(library_dir)}) <= {"handbook.docx", "report.pdf"}
    assert await files({"path_prefix": str(sibling)}) == {"old.docx"}
    assert await files({"tags": ["archive"]}) == {"old.docx"}
    assert await files({"document_type": ["pdf"]}) == {"report.pdf"}
    assert "old.docx" in await files({"document_type": "docx"})
    lists = await call_tool(
        "document_search", {"query": "laptop badge", "filters": {"chunk_type": ["list"]}}
    )
    assert lists["results"] and {r["chunk_type"] for r in lists["results"]} == {"list"}


async def test_paths_outside_the_roots_are_refused(tmp_path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    secret = outside / "secret.md"
    secret.write_text("# Secret\n\nThe launch codes.")
    inside = tmp_path / "inside"
    inside.mkdir()
    (inside / "ok.md").write_text("# Fine\n\nA harmless note.")

    error = await call_error("document_ingest", {"path": str(secret)})
    assert error["category"] == "forbidden_path" and "VIDEO_RESEARCH_FILE_ROOTS" in error["hint"]
    dotdot = str(inside / ".." / ".." / outside.name / "secret.md")
    assert (await call_error("document_ingest", {"path": dotdot}))["category"] == "forbidden_path"
    (inside / "link.md").symlink_to(secret)
    linked = await call_error("document_ingest", {"path": str(inside / "link.md")})
    assert linked["category"] == "forbidden_path"
    (inside / "escape").symlink_to(outside, target_is_directory=True)
    assert (await call_error("document_ingest", {"path": str(inside / "escape")}))[
        "category"
    ] == "forbidden_path"

    # Expanding a directory: the link inside fails alone, the ordinary file goes in.
    report = await call_tool("document_ingest", {"path": str(inside)})
    status = {Path(f["path"]).name: f for f in report["files"]}
    assert status["ok.md"]["status"] == "ingested"
    assert status["link.md"]["error"]["category"] == "forbidden_path"
    found = await call_tool("document_search", {"query": "launch codes", "alpha": 0})
    assert found["results"] == []


async def test_missing_path_and_bad_glob(tmp_path):
    error = await call_error("document_ingest", {"path": str(tmp_path / "nope.pdf")})
    assert error["category"] == "not_found"
    error = await call_error("document_ingest", {"path": str(tmp_path), "glob": "../*"})
    assert error["category"] == "invalid_input"
    error = await call_error("document_ingest", {"glob": "*.pdf"})
    assert error["category"] == "invalid_input", "a path is required"


async def test_list_pages_and_delete(library_dir, tmp_path):
    await call_tool("document_ingest", {"path": str(library_dir)})
    first = await call_tool("document_list", {"limit": 1})
    assert first["total"] == 2 and first["next_offset"] == 1
    assert first["documents"][0]["file_name"] == "handbook.docx"
    second = await call_tool("document_list", {"limit": 1, "offset": 1})
    report = second["documents"][0]
    assert (report["file_name"], report["pages"], report["file_exists"]) == ("report.pdf", 3, True)
    assert second["next_offset"] is None
    only_pdf = await call_tool("document_list", {"filters": {"document_type": "pdf"}})
    assert [d["file_name"] for d in only_pdf["documents"]] == ["report.pdf"]

    (library_dir / "report.pdf").unlink()
    listed = await call_tool("document_list", {"filters": {"document_type": "pdf"}})
    assert listed["documents"][0]["file_exists"] is False
    deleted = await call_tool(
        "document_delete", {"paths": [str(library_dir / "report.pdf"), str(tmp_path / "never.pdf")]}
    )
    assert deleted["documents_deleted"] == 1 and deleted["chunks_deleted"] == report["chunks"]
    assert deleted["not_found"] == [str(tmp_path / "never.pdf")]
    remaining = await call_tool("document_list", {})
    assert [d["file_name"] for d in remaining["documents"]] == ["handbook.docx"]

    by_prefix = await call_tool("document_delete", {"path_prefix": str(library_dir)})
    assert by_prefix["documents_deleted"] == 1
    assert (await call_tool("document_list", {}))["total"] == 0
    again = await call_tool("document_delete", {"document_ids": [report["document_id"]]})
    assert again["documents_deleted"] == 0 and again["not_found"] == [report["document_id"]]


async def test_progress_per_file_and_cancel_leaves_whole_documents(tmp_path):
    folder = tmp_path / "many"
    make_notes(folder, 30)
    seen: list[tuple[float, float | None]] = []
    first_file = asyncio.Event()

    async def progress(done, total, message):
        seen.append((done, total))
        if done >= 1:
            first_file.set()

    ctx = CallContext(tool="document_ingest", caller=OWNER, progress_fn=progress)
    task = asyncio.create_task(call_tool("document_ingest", {"path": str(folder)}, ctx))
    await asyncio.wait_for(first_file.wait(), 60)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen[0] == (0, 30) and seen[1] == (1, 30)

    store = await get_store()
    listed = await call_tool("document_list", {"limit": 500})
    assert 1 <= listed["total"] < 30, "cancelled part-way"
    for document in listed["documents"]:
        stored = await store.count(
            library.COLLECTION, Filter.eq("document_id", document["document_id"])
        )
        assert stored == document["chunks"], f"{document['file_name']} is half written"

    rest = await call_tool("document_ingest", {"path": str(folder)})
    # A write the cancellation caught in flight may still have committed (whole) since.
    assert rest["unchanged"] >= listed["total"] and rest["unchanged"] + rest["ingested"] == 30
