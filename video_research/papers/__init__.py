"""Scholarly papers from the Semantic Scholar Academic Graph and Recommendations APIs.

- `ids`: what a user may pass as a paper (S2 ID, DOI, arXiv ID, CorpusId, URLs) and how
  it becomes the path segment the API takes.
- `client`: the one module that talks to Semantic Scholar (httpx), paced to its rate
  limit and retried with tenacity, errors mapped onto our categories.
- `shapes`: the API's camelCase papers and authors as the tools return them.
- `collection`: the `Papers` knowledge collection every result is written through to.
"""

from __future__ import annotations


def register_with_knowledge() -> None:
    """Plug papers into the knowledge layer, which sits below and may not import them:
    the Papers collection, which the paper tools write through to. The tools layer calls
    this on the knowledge layer's first lookup."""
    from video_research.knowledge.collections import register_collection
    from video_research.papers.collection import PAPERS

    register_collection(PAPERS)
