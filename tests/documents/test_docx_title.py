"""A DOCX is named by its Title-style paragraph, then its core properties' title, then its
first Heading 1: what its author set, not whatever heading comes first."""

from __future__ import annotations

import io

from video_research.documents.extract import DocumentType, docx_title, extract


def _docx(*, title: str | None = None, core: str | None = None, heading: str | None = None):
    import docx

    document = docx.Document()
    document.core_properties.title = core or ""
    document.add_paragraph("A first line of body text.")
    if title:
        document.add_paragraph(title, style="Title")
    if heading:
        document.add_heading(heading, 1)
    document.add_heading("Background", 2)
    document.add_paragraph("Tidal barrages store water behind a dam.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_the_title_style_paragraph_wins_over_properties_and_headings():
    data = _docx(title="Tidal Power Study", core="Draft 3", heading="Introduction")
    assert extract(data, DocumentType.DOCX, "study.docx").title == "Tidal Power Study"


def test_then_the_core_properties_title():
    data = _docx(core="Tidal Power Study", heading="Introduction")
    assert extract(data, DocumentType.DOCX, "study.docx").title == "Tidal Power Study"


def test_then_the_first_heading_1_and_a_junk_property_title_is_ignored():
    data = _docx(core="Microsoft Word - study.docx", heading="Introduction")
    assert extract(data, DocumentType.DOCX, "study.docx").title == "Introduction"


def test_without_any_the_extraction_falls_back_as_before():
    assert docx_title(_docx()) is None
    assert extract(_docx(), DocumentType.DOCX, "study.docx").title == "Background"


def test_a_broken_archive_gives_no_title_rather_than_an_error():
    assert docx_title(b"PK\x03\x04 not really a zip") is None
