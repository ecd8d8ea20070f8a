"""Regenerate the binary samples in this folder (deck.pptx, encrypted.pdf).

    .venv/bin/python -m tests.data.documents.generate

The text samples (field-guide.html, release-notes.md) and the corrupt files were written by
hand: corrupt.pdf is a PDF cut off in the middle of its first page object, corrupt.docx a
ZIP signature followed by junk, the way an interrupted download looks.
"""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.documents import make_pdf

HERE = Path(__file__).parent


def make_deck(path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slides = [
        ("Volcano monitoring", ["Seismometers ring the crater", "Gas sensors report every minute"]),
        (
            "Eruption warning levels",
            ["Green: normal", "Orange: heightened unrest", "Red: eruption imminent"],
        ),
    ]
    for title, bullets in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = bullets[0]
        for bullet in bullets[1:]:
            body.add_paragraph().text = bullet
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Sensor budget"
    rows = [("Sensor", "Cost"), ("Seismometer", "12000"), ("Gas analyser", "8500")]
    table = slide.shapes.add_table(len(rows), 2, Inches(1), Inches(2), Inches(6), Inches(1.5)).table
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    slide.notes_slide.notes_text_frame.text = "Prices exclude installation on the crater rim."
    deck.save(str(path))


def main() -> None:
    make_deck(HERE / "deck.pptx")
    make_pdf(
        HERE / "encrypted.pdf",
        [("Confidential", [("Salaries", "The salary bands are confidential.")])],
        password="s3cret",
    )


if __name__ == "__main__":
    main()
