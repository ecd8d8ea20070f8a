"""Document knowledge: real PDFs, DOCX, PPTX, HTML and Markdown files through extraction,
chunking, the real store and embeddings, and the four document tools."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
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
from video_research.documents import library
from video_research.documents.chunking import chunk_blocks, heading_text
from video_research.documents.extract import Block, DocumentType, extract, parse_markdown
from video_research.handlers.context import CallContext
from video_research.knowledge.embedders.embeddings import default_token_counter
from video_research.knowledge.filters import Filter
from video_research.knowledge.store import get_store

pytestmark = pytest.mark.slow

SAMPLES = DATA / "documents"


def _within_budget(chunks, budget):
    for chunk in chunks:
        heading = (
            default_token_counter().count(heading_text(chunk.heading_path))
            if chunk.heading_path
            else 0
        )
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
    assert error["category"] == "forbidden" and "VIDEO_RESEARCH_FILE_ROOTS" in error["hint"]
    dotdot = str(inside / ".." / ".." / outside.name / "secret.md")
    assert (await call_error("document_ingest", {"path": dotdot}))["category"] == "forbidden"
    (inside / "link.md").symlink_to(secret)
    linked = await call_error("document_ingest", {"path": str(inside / "link.md")})
    assert linked["category"] == "forbidden"
    (inside / "escape").symlink_to(outside, target_is_directory=True)
    assert (await call_error("document_ingest", {"path": str(inside / "escape")}))[
        "category"
    ] == "forbidden"

    # Expanding a directory: the link inside fails alone, the ordinary file goes in.
    report = await call_tool("document_ingest", {"path": str(inside)})
    status = {Path(f["path"]).name: f for f in report["files"]}
    assert status["ok.md"]["status"] == "ingested"
    assert status["link.md"]["error"]["category"] == "forbidden"
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


# ------------------------------------------------------------------ review fixes
def test_a_table_that_is_all_header_is_split_not_dropped():
    words = " ".join(f"word{i}" for i in range(300))
    chunks = chunk_blocks([Block("table", f"| {words} |\n| --- |")], 200)
    assert chunks, "the text of a one-row layout table is kept"
    _within_budget(chunks, 200)
    kept = " ".join(c.text for c in chunks)
    assert all(f"word{i} " in kept + " " for i in (0, 150, 299))
    assert "---" not in kept

    # A header too big to repeat in every piece is not repeated (pieces stay in budget).
    header = "| " + " | ".join(f"column {i}" for i in range(60)) + " |"
    rows = "\n".join(f"| value {i} |" for i in range(40))
    chunks = chunk_blocks([Block("table", f"{header}\n|---|\n{rows}")], 64)
    _within_budget(chunks, 64)
    assert sum(c.text.count("| value ") for c in chunks) == 40


async def test_a_header_only_table_document_is_listed_with_its_text(tmp_path):
    layout = tmp_path / "layout.md"
    layout.write_text(
        "| " + " ".join(f"layout{i}" for i in range(300)) + " |\n| --- |\n", encoding="utf-8"
    )
    report = await call_tool("document_ingest", {"path": str(layout)})
    assert report["files"][0]["status"] == "ingested" and report["files"][0]["chunks"] > 1
    assert (await call_tool("document_list", {}))["total"] == 1


async def test_a_file_without_text_fails_before_replacing_its_previous_version(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe kettle descales with citric acid.\n")
    first = await call_tool("document_ingest", {"path": str(notes)})
    notes.write_text("# Notes\n\n## Nothing yet\n")
    again = await call_error("document_ingest", {"path": str(notes)})
    failed = again["details"]["failed"][0]
    assert again["category"] == failed["category"] == "invalid_input"
    assert "no extractable text" in failed["error"] and failed["hint"]
    listed = await call_tool("document_list", {})
    assert [d["chunks"] for d in listed["documents"]] == [first["files"][0]["chunks"]]


async def test_max_files_counts_files_read_so_later_calls_take_the_rest(tmp_path):
    folder = tmp_path / "many"
    make_notes(folder, 7)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    seen: set[str] = set()
    statuses = []
    for _ in range(4):
        report = await call_tool("document_ingest", {"path": str(folder), "max_files": 3})
        statuses.append((report["ingested"], report["failed"], report["truncated"]))
        seen |= {Path(f["path"]).name for f in report["files"] if f["status"] == "ingested"}
    assert len(seen) == 7, "every note is ingested by calling again"
    # broken.pdf sorts first and fails every time: it counts as one of the files read.
    assert statuses == [(2, 1, True), (2, 1, True), (2, 1, True), (1, 1, False)]


async def test_a_store_that_refuses_writes_fails_the_call_not_each_file(
    tmp_path, gemini_stub, configure
):
    folder = tmp_path / "notes"
    make_notes(folder, 3)
    await call_tool("document_ingest", {"path": str(folder)})
    for note in folder.iterdir():
        note.write_text(note.read_text() + "\nA later line.\n")
    configure(
        KNOWLEDGE_EMBEDDING_MODEL=None,
        KNOWLEDGE_EMBEDDING_PROVIDER="gemini",
        KNOWLEDGE_EMBEDDING_DIMENSIONS="768",
    )
    error = await call_error("document_ingest", {"path": str(folder)})
    assert error["category"] == "config_error" and "knowledge_reembed" in error["hint"]


async def test_unusable_globs_and_paths_are_invalid_input(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nText.")
    for glob in ("**.md", "docs/**x/*.md", "/etc/*", "../*", "a\x00b"):
        error = await call_error("document_ingest", {"path": str(tmp_path), "glob": glob})
        assert error["category"] == "invalid_input", (glob, error)
    for path in ("~nosuchuser-vr/notes", str(tmp_path / "a\x00.md")):
        error = await call_error("document_ingest", {"path": path})
        assert error["category"] == "invalid_input", (path, error)
        error = await call_error("document_list", {"filters": {"path_prefix": path}})
        assert error["category"] == "invalid_input", (path, error)
        error = await call_error("document_delete", {"path_prefix": path})
        assert error["category"] == "invalid_input", (path, error)


_SCANS: list[list[str]] = []
"""Folders listed (os.scandir audit events) while a test records them: into _SCANS[-1]."""


_HOOKED: list = []


def _record_scandir(event: str, args: tuple) -> None:
    if event == "os.scandir" and _SCANS:
        _SCANS[-1].append(os.fspath(args[0]))


def test_expanding_a_folder_skips_hidden_folders_without_entering_them(tmp_path):
    from video_research.documents.ingest import _expand

    (tmp_path / "docs" / "deep").mkdir(parents=True)
    (tmp_path / "docs" / "a.md").write_text("a")
    (tmp_path / "docs" / "deep" / "b.md").write_text("b")
    (tmp_path / "top.md").write_text("t")
    (tmp_path / "top.txt").write_text("t")
    hidden = tmp_path / ".venv" / "lib"
    hidden.mkdir(parents=True)
    (hidden / "c.md").write_text("c")

    def found(pattern):
        return [
            p.relative_to(tmp_path).as_posix()
            for folder in _expand(tmp_path, pattern)
            for p in folder
        ]

    def listed(pattern):
        _SCANS.append([])
        try:
            return found(pattern), _SCANS[-1]
        finally:
            _SCANS.pop()

    if _record_scandir not in _HOOKED:
        sys.addaudithook(_record_scandir)  # audit hooks stay for the process: add it once
        _HOOKED.append(_record_scandir)
    files, folders = listed("**/*")
    assert files == ["top.md", "top.txt", "docs/a.md", "docs/deep/b.md"]
    assert not [f for f in folders if ".venv" in f], "hidden folders are not listed"
    files, folders = listed("*.md")
    assert (files, folders) == (["top.md"], [str(tmp_path)]), "only the top folder is read"
    assert found("**/*.md") == ["top.md", "docs/a.md", "docs/deep/b.md"]
    assert found("docs/*") == ["docs/a.md"]
    assert found("docs/**/*.md") == ["docs/a.md", "docs/deep/b.md"]
    assert found("*/*/b.md") == ["docs/deep/b.md"]


def test_markdown_headings_breaks_and_front_matter():
    markdown = (
        "---\ntitle: Notes\ntags: [c]\n---\n\n# Learning C#\n\n## Setup ##\n\n"
        "Install the SDK.\n\n---\n\n* * *\n\nRun it.\n"
    )
    blocks = list(parse_markdown(markdown, front_matter=True))
    assert [(b.kind, b.text) for b in blocks] == [
        ("heading", "Learning C#"),
        ("heading", "Setup"),
        ("text", "Install the SDK."),
        ("text", "Run it."),
    ]


def test_a_pdf_that_denies_copying_is_read_anyway(tmp_path):
    from reportlab.lib import pdfencrypt
    from reportlab.pdfgen import canvas

    path = tmp_path / "paper.pdf"
    encrypt = pdfencrypt.StandardEncryption("", ownerPassword="owner", canCopy=0)
    page = canvas.Canvas(str(path), encrypt=encrypt)
    page.drawString(72, 700, "Spectral lines of hydrogen were measured at dawn.")
    page.save()
    extracted = extract(path.read_bytes(), DocumentType.PDF, path.name)
    assert any("hydrogen" in b.text for b in extracted.blocks)


def test_an_html_page_inside_one_form_keeps_its_text():
    page = b"""<html><body><form id="form1" method="post" action="./Default.aspx">
    <nav><a href="/">Home</a></nav>
    <h1>Tide tables</h1><p>High water at the harbour is at 06:12 today.</p>
    <form><input name="q"><button>Search</button></form>
    </form></body></html>"""
    extracted = extract(page, DocumentType.HTML, "tides.aspx.html")
    texts = [b.text for b in extracted.blocks]
    assert "High water at the harbour is at 06:12 today." in texts
    assert not any("Search" in t or "Home" in t for t in texts)


def test_a_bold_paragraph_is_text_not_a_heading(tmp_path):
    bold = " ".join(f"Every visitor must sign the register, entry {i}." for i in range(12))
    plain = " ".join(f"The survey covered plot {i} in the northern meadow." for i in range(30))
    pdf = make_pdf(
        tmp_path / "rules.pdf",
        [("Site rules", [("Access", f"<b>{bold}</b>"), ("Survey", plain)])],
    )
    extracted = extract(pdf.read_bytes(), DocumentType.PDF, pdf.name)
    headings = [b.text for b in extracted.blocks if b.kind == "heading"]
    assert headings == ["Site rules", "Access", "Survey"]
    chunks = chunk_blocks(extracted.blocks, 200)
    _within_budget(chunks, 200)
    assert any("entry 11." in c.text and c.heading_path == ["Site rules", "Access"] for c in chunks)


async def test_delete_and_list_beyond_the_store_window(tmp_path):
    from video_research.knowledge.store import MAX_RESULTS

    folder = tmp_path / "bulk"
    count = MAX_RESULTS + 104
    objects = [
        {
            "text": f"Passage {i}.",
            "document_id": library.document_id(folder / f"{i:05}.md"),
            "source_path": str(folder / f"{i:05}.md"),
            "file_name": f"{i:05}.md",
            "document_type": "markdown",
            "chunk_type": "text",
            "chunk_index": 0,
            "chunk_count": 1,
            "source_tool": "document_ingest",
        }
        for i in range(count)
    ]
    store = await get_store()
    await store.insert_many(library.COLLECTION, objects, vectors=[[1.0] + [0.0] * 383] * count)

    last = await call_tool("document_list", {"limit": 500, "offset": MAX_RESULTS - 100})
    assert len(last["documents"]) == 100 and last["next_offset"] is None
    assert last["total"] == count
    too_far = await call_error("document_list", {"offset": MAX_RESULTS})
    assert too_far["category"] == "invalid_input"

    deleted = await call_tool("document_delete", {"path_prefix": str(folder)})
    assert deleted["documents_deleted"] == count and deleted["chunks_deleted"] == count
    assert (await call_tool("document_list", {}))["total"] == 0
