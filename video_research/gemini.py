"""The Gemini client: the one module that talks to the Gemini API (google-genai).

(The Gemini issue fills this module. Its contract for other modules so far:)
"""

from __future__ import annotations


async def embed_content(
    texts: list[str],
    *,
    model: str,
    output_dimensionality: int,
    task_type: str = "RETRIEVAL_DOCUMENT",
) -> list[list[float]]:
    """One embedding per text from gemini-embedding (Matryoshka `output_dimensionality`)."""
    raise NotImplementedError("the Gemini client is not built yet")
