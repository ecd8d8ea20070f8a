"""document_ingest throughput on a generated 200-page PDF (BENCH_DOCUMENTS_PAGES).

Baselines, measured in the same run on the same file:
- pages/s: markitdown's own PDF conversion (text only: no pages kept, no chunking,
  embedding or storing), what a plain "convert with markitdown" pipeline starts from;
- chunks/s: the local embedding model alone on the same passages, the floor every
  ingest pays, so the ratio shows what extraction, chunking and the store add.
Also: extraction + chunking alone, and re-ingesting the unchanged file (hash check only).

Isolation overhead: extraction in a parser worker process (what document_ingest does)
beside the same extraction in this process, on the same bytes, as a ratio (target: at most
1.10), for the 200-page PDF and for a batch of small files (where the per-file cost of
sending bytes and blocks between processes weighs most); the workers are warm, as a
running server's are after its first file. The first file of a cold pool (starting a worker,
importing the parsers) is reported on its own.
"""

from __future__ import annotations

import io
import os
import random
import tempfile
from pathlib import Path

from tests.bench.common import header, median, report, run_with_env, stopwatch, warm_up
from tests.fixtures.documents import call_tool, make_pdf
from video_research.support.services import current_settings

PAGES = int(os.environ.get("BENCH_DOCUMENTS_PAGES", "200"))
WORDS = [
    "telescope",
    "spectrum",
    "calibration",
    "binary",
    "eclipse",
    "magnitude",
    "observatory",
    "night",
    "frame",
    "bias",
    "flat",
    "detector",
    "exposure",
    "filter",
    "photometry",
    "variable",
    "period",
    "orbit",
    "mass",
    "radius",
    "temperature",
    "survey",
    "catalogue",
    "noise",
    "signal",
    "aperture",
    "seeing",
    "cloud",
    "humidity",
    "dome",
    "mirror",
    "focus",
    "guide",
    "star",
    "field",
]


def _paragraph(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _pdf(path: Path) -> Path:
    rng = random.Random(6)
    pages = [
        (
            f"Chapter {n}",
            [(f"Section {n}.{s}", _paragraph(rng, 90)) for s in range(1, 3)],
        )
        for n in range(1, PAGES + 1)
    ]
    return make_pdf(path, pages)


async def _run(tmp: Path) -> None:
    from markitdown import StreamInfo
    from markitdown.converters import PdfConverter

    from video_research.documents.chunking import chunk_blocks
    from video_research.documents.extract import DocumentType, extract
    from video_research.documents.ingest import chunk_budget
    from video_research.knowledge.embedders.embeddings import get_embedder

    pdf = _pdf(tmp / "book.pdf")
    data = pdf.read_bytes()
    header(f"document_ingest on a {PAGES}-page PDF ({len(data) / 1e6:.1f} MB)")

    with stopwatch() as plain:
        PdfConverter().convert(io.BytesIO(data), StreamInfo(extension=".pdf"))
    baseline_pages = PAGES / plain["s"]

    with stopwatch() as parse:
        extracted = extract(data, DocumentType.PDF, pdf.name)
        tokens = get_embedder(current_settings()).token_counter()
        chunks = chunk_blocks(
            extracted.blocks, chunk_budget(current_settings(), tokens), tokens=tokens
        )
    report(
        "extract + chunk (pages kept), pages/s",
        PAGES / parse["s"],
        "pages/s",
        "markitdown PdfConverter",
        baseline_pages,
        higher_is_better=True,
    )

    embedder = get_embedder(current_settings())
    await warm_up(embedder)
    await _isolation_overhead(data, pdf.name, tmp / "notes")
    with stopwatch() as full:
        result = await call_tool("document_ingest", {"path": str(pdf)})
    assert result["ingested"] == 1, result
    written = result["chunks_written"]
    report(
        "document_ingest (extract, chunk, embed, store)",
        PAGES / full["s"],
        "pages/s",
        "markitdown PdfConverter",
        baseline_pages,
        higher_is_better=True,
    )

    texts = ["\n".join(c.heading_path) + "\n" + c.text for c in chunks]
    with stopwatch() as embed:
        await embedder.embed(texts)
    report(
        f"document_ingest ({written} chunks)",
        written / full["s"],
        "chunks/s",
        "embedding alone, same chunks",
        len(texts) / embed["s"],
        higher_is_better=True,
    )

    with stopwatch() as again:
        result = await call_tool("document_ingest", {"path": str(pdf)})
    assert result["unchanged"] == 1, result
    report(
        "re-ingest unchanged (hash check)",
        PAGES / again["s"],
        "pages/s",
        "markitdown PdfConverter",
        baseline_pages,
        higher_is_better=True,
    )


SMALL_FILES = 40
ROUNDS = 3


async def _isolation_overhead(data: bytes, name: str, notes: Path) -> None:
    """Extraction in a warm parser worker beside extraction in this process; then what
    the difference weighs in document_ingest of the small files."""
    import asyncio

    from video_research.documents.extract import DocumentType, extract
    from video_research.documents.guards import ArchiveLimits
    from video_research.support.isolation import parse_isolated

    limits = ArchiveLimits.from_settings()
    rng = random.Random(7)
    small = [
        (
            f"note-{n}.md",
            "\n\n".join(f"## Part {p}\n\n{_paragraph(rng, 60)}" for p in range(4)).encode(),
        )
        for n in range(SMALL_FILES)
    ]

    with stopwatch() as cold:
        await parse_isolated("warm-up.md", extract, b"# Warm\n\nup", DocumentType.MARKDOWN, "w.md")
    print(f"{'parser pool: first file (cold start)':<44} {cold['s'] * 1000:>12.1f} ms", flush=True)
    for label, document_type, files in (
        (f"{PAGES}-page PDF", DocumentType.PDF, [(name, data)]),
        (f"{SMALL_FILES} small Markdown files", DocumentType.MARKDOWN, small),
    ):
        # One warm-up of each kind in each place (the parser modules are imported lazily).
        extract(files[0][1], document_type, files[0][0], limits=limits)
        await parse_isolated(
            files[0][0], extract, files[0][1], document_type, files[0][0], limits=limits
        )
        here, isolated = [], []
        for _ in range(ROUNDS):
            with stopwatch() as local:
                for file_name, content in files:
                    await asyncio.to_thread(
                        extract, content, document_type, file_name, limits=limits
                    )
            here.append(local["s"])
            with stopwatch() as worker:
                for file_name, content in files:
                    await parse_isolated(
                        file_name, extract, content, document_type, file_name, limits=limits
                    )
            isolated.append(worker["s"])
        report(
            f"extract in a parser worker, {label}",
            median(isolated) * 1000,
            "ms",
            "extract in-process (thread)",
            median(here) * 1000,
            higher_is_better=False,
        )
        added = median(isolated) - median(here)
    notes.mkdir()
    for file_name, content in small:
        (notes / file_name).write_bytes(content)
    with stopwatch() as ingest:
        result = await call_tool("document_ingest", {"path": str(notes)})
    assert result["ingested"] == SMALL_FILES, result
    # The same ingest without what isolation added to its extraction (measured above).
    report(
        f"document_ingest, {SMALL_FILES} small files (isolated)",
        ingest["s"] * 1000,
        "ms",
        "same less the isolation's added time",
        (ingest["s"] - max(added, 0.0)) * 1000,
        higher_is_better=False,
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "VIDEO_RESEARCH_DATA_DIR": str(Path(tmp) / "data"),
            "VIDEO_RESEARCH_FILE_ROOTS": tmp,
            "HF_HUB_OFFLINE": "1",
        }
        run_with_env(env, lambda: _run(Path(tmp)))
