"""What a tool says it reads is what its code reads: every file type of the code's own
list is named in the tool's summary or input schema, so a client (and the model behind
it) never stops at a format the server takes."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import REPO_ROOT
from video_research.content.analysis import TEXT_SUFFIXES
from video_research.content.batch import SUPPORTED as BATCH_SUFFIXES
from video_research.documents.extract import EXTENSIONS
from video_research.media.limits import MEDIA_SUFFIXES, VIDEO_SUFFIXES
from video_research.support import contracts
from video_research.tools.table import TOOLS
from video_research.transcripts import formats
from video_research.transcripts.parsers import PARSERS, SUPPORTED_SUFFIXES
from video_research.video.input import VIDEO_MIME_TYPES


def _names(text: str, suffix: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(suffix.lstrip('.'))}(?![\w])", text) is not None


def _published(tool: str) -> str:
    return TOOLS[tool].description + json.dumps(contracts.tool_schema(tool, "input"))


@pytest.mark.parametrize(
    "tool,suffixes",
    [
        ("index_transcript_files", SUPPORTED_SUFFIXES),
        ("document_ingest", tuple(EXTENSIONS)),
        ("research_document", tuple(EXTENSIONS)),
        ("content_analyze", (".pdf", *sorted(TEXT_SUFFIXES))),
        ("content_batch_analyze", tuple(sorted(BATCH_SUFFIXES))),
        ("video_analyze", tuple(VIDEO_MIME_TYPES)),
        ("index_media_files", MEDIA_SUFFIXES),
        ("media_frames", VIDEO_SUFFIXES),
    ],
)
def test_every_file_type_the_code_reads_is_named(tool, suffixes):
    published = _published(tool)
    missing = [s for s in suffixes if not _names(published, s)]
    assert not missing, f"{tool} reads {missing} but does not say so"


def test_the_transcript_summary_names_every_format_from_the_parsers_own_list():
    """The one-line summary (what toolset_enable and `tools --all` show) names all 14."""
    summary = TOOLS["index_transcript_files"].summary
    assert len(SUPPORTED_SUFFIXES) == 14 and set(PARSERS) == set(formats.SUFFIXES)
    for suffix in SUPPORTED_SUFFIXES:
        assert suffix in summary, suffix


def test_the_readme_row_and_tour_name_the_transcript_formats():
    readme = (REPO_ROOT / "README.md").read_text()
    row = next(
        line for line in readme.splitlines() if line.startswith("| `index_transcript_files`")
    )
    for word in ("VTT", "SRT", "JSON", "TTML", "TSV", "Markdown"):
        assert word in row, word
