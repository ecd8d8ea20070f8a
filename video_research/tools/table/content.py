"""The content toolset: documents, web pages and text analysed by Gemini, one or many."""

from __future__ import annotations

from video_research.tools.table.spec import ToolSpec

SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="content_analyze",
        handler="content:content_analyze",
        toolset="content",
        title="Analyze a document, page or text",
        description=(
            "Analyze a local PDF or text file, a web page (Gemini fetches it) or raw text with any "
            "instruction.\n"
            "Returns title, summary, key points and entities, or your output_schema's shape. "
            "Written to the knowledge base."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="content_extract",
        handler="content:content_extract",
        toolset="content",
        title="Extract structured data",
        description=(
            "Extract an object of your JSON Schema's shape from text; the answer is checked "
            "against the schema."
        ),
        open_world=True,
    ),
    ToolSpec(
        name="content_batch_analyze",
        handler="content:content_batch_analyze",
        toolset="content",
        title="Analyze many documents",
        description=(
            "Analyze many local PDF or text files with one instruction, each on its own or "
            "compared.\n"
            "Progress per file; a file that fails is reported in its item, never failing the "
            "batch."
        ),
        open_world=True,
    ),
)
