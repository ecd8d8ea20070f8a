"""Scholarly papers from the Semantic Scholar Academic Graph and Recommendations APIs.

- `ids`: what a user may pass as a paper (S2 ID, DOI, arXiv ID, CorpusId, URLs) and how
  it becomes the path segment the API takes.
- `client`: the one module that talks to Semantic Scholar (httpx), paced to its rate
  limit and retried with tenacity, errors mapped onto our categories.
- `shapes`: the API's camelCase papers and authors as the tools return them.
- `collection`: the `Papers` knowledge collection every result is written through to.
"""
