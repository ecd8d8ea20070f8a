"""The five Semantic Scholar calls the paper tools make, and the shapes they return.

The API answers in camelCase with every field optional (a paper may lack an abstract,
a year, authors); `paper()` and `author()` turn that into the snake_case objects the
tools return, with a missing value as null or an empty list, never a missing key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from video_research.clients import semantic_scholar as client
from video_research.papers import ids
from video_research.support.schema_types.common.papers import Paper

if TYPE_CHECKING:
    from video_research.support.schema_types.tools.research_author_search_output import Author
    from video_research.support.schema_types.tools.research_paper_citations_output import (
        Item as Citation,
    )

GRAPH = "/graph/v1"
RECOMMENDATIONS = "/recommendations/v1"

LIST_FIELDS = (
    "paperId,externalIds,url,title,abstract,venue,year,publicationDate,authors,citationCount,"
    "referenceCount,influentialCitationCount,isOpenAccess,openAccessPdf,fieldsOfStudy,"
    "publicationTypes"
)
DETAIL_FIELDS = LIST_FIELDS + ",journal,tldr,citationStyles"
CITATION_FIELDS = "contexts,intents,isInfluential," + LIST_FIELDS
AUTHOR_FIELDS = (
    "authorId,externalIds,url,name,affiliations,homepage,paperCount,citationCount,hIndex"
)
ABSTRACT_CHARS = 3000
"""Abstracts are cut here in lists: a page of 100 full abstracts is mostly noise."""


class ListedPaper(Paper):
    """A paper as the tools return it: the contract's fields (Paper) and the others the
    API gives, which the contracts leave open."""

    publication_date: str | None
    reference_count: int | None
    influential_citation_count: int | None
    is_open_access: bool | None
    open_access_pdf: str | None
    fields_of_study: list[str]
    publication_types: list[str]
    doi: str | None
    arxiv_id: str | None


class PaperDetails(Paper):
    """What research_paper_details declares of one paper; `detailed` builds it with the
    fields of a ListedPaper too."""

    external_ids: dict[str, Any]
    journal: dict[str, Any] | None
    tldr: str | None
    bibtex: str | None


class DetailedPaper(ListedPaper, PaperDetails):
    """A paper with everything research_paper_details returns."""


class PageInfo(TypedDict):
    offset: int
    next_offset: int | None
    total: int | None


class PaperPage(PageInfo):
    papers: list[Paper]


class AuthorPage(PageInfo):
    authors: list[Author]


class CitationPage(TypedDict):
    """What research_paper_citations declares of a page of citations."""

    paper_id: str
    direction: str
    items: list[Citation]
    offset: int
    next_offset: int | None


class _CitationPageWithTotal(CitationPage):
    # The API's total rides along on the wire, undeclared by the contract.
    total: int | None


class Recommendations(TypedDict):
    paper_id: str
    papers: list[Paper]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _texts(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _object(value: Any) -> dict[str, Any]:
    """`value` when the API gave an object there, else an empty one."""
    return value if isinstance(value, dict) else {}


def paper(raw: dict[str, Any], *, full: bool = False) -> ListedPaper:
    """A Graph API paper as the tools list it (`full` keeps the whole abstract)."""
    external = _object(raw.get("externalIds"))
    pdf = _object(raw.get("openAccessPdf"))
    abstract = raw.get("abstract") if isinstance(raw.get("abstract"), str) else None
    if abstract and not full and len(abstract) > ABSTRACT_CHARS:
        abstract = abstract[:ABSTRACT_CHARS].rstrip() + "…"
    return {
        "paper_id": str(raw.get("paperId") or ""),
        "title": str(raw.get("title") or ""),
        "abstract": abstract,
        "year": _count(raw.get("year")),
        "publication_date": raw.get("publicationDate")
        if isinstance(raw.get("publicationDate"), str)
        else None,
        "venue": raw.get("venue") or None,
        "authors": [
            {"author_id": a.get("authorId"), "name": str(a.get("name") or "")}
            for a in raw.get("authors") or []
            if isinstance(a, dict)
        ],
        "citation_count": _count(raw.get("citationCount")),
        "reference_count": _count(raw.get("referenceCount")),
        "influential_citation_count": _count(raw.get("influentialCitationCount")),
        "is_open_access": raw.get("isOpenAccess")
        if isinstance(raw.get("isOpenAccess"), bool)
        else None,
        "open_access_pdf": pdf.get("url") or None,
        "fields_of_study": _texts(raw.get("fieldsOfStudy")),
        "publication_types": _texts(raw.get("publicationTypes")),
        "doi": external.get("DOI"),
        "arxiv_id": external.get("ArXiv"),
        "url": raw.get("url")
        or (
            f"https://www.semanticscholar.org/paper/{raw['paperId']}"
            if raw.get("paperId")
            else None
        ),
    }


def detailed(raw: dict[str, Any]) -> PaperDetails:
    """A Graph API paper with its whole abstract, journal, TL;DR, BibTeX and external IDs."""
    external = _object(raw.get("externalIds"))
    journal = _object(raw.get("journal"))
    tldr = _object(raw.get("tldr"))
    styles = _object(raw.get("citationStyles"))
    out: DetailedPaper = {
        **paper(raw, full=True),
        "external_ids": {str(k): str(v) for k, v in external.items() if v is not None},
        "journal": {k: v for k, v in journal.items() if isinstance(v, str)} or None,
        "tldr": tldr.get("text") or None,
        "bibtex": styles.get("bibtex") or None,
    }
    return out


def author(raw: dict[str, Any]) -> Author:
    return {
        "author_id": str(raw.get("authorId") or ""),
        "name": str(raw.get("name") or ""),
        "affiliations": _texts(raw.get("affiliations")),
        "homepage": raw.get("homepage") or None,
        "paper_count": _count(raw.get("paperCount")),
        "citation_count": _count(raw.get("citationCount")),
        "h_index": _count(raw.get("hIndex")),
        "url": raw.get("url")
        or (
            f"https://www.semanticscholar.org/author/{raw['authorId']}"
            if raw.get("authorId")
            else None
        ),
    }


def _page(body: dict[str, Any], offset: int) -> PageInfo:
    """offset/next/total of a paged answer; `next` is absent on the last page."""
    nxt = body.get("next")
    total = body.get("total")
    return {
        "offset": _count(body.get("offset")) or offset,
        "next_offset": _count(nxt),
        "total": int(total) if isinstance(total, int | str) and str(total).isdigit() else None,
    }


def _data(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in body.get("data") or [] if isinstance(item, dict)]


async def search_papers(
    query: str, *, limit: int, offset: int, filters: dict[str, Any]
) -> PaperPage:
    body = await client.get(
        f"{GRAPH}/paper/search",
        {"query": query, "limit": limit, "offset": offset, "fields": LIST_FIELDS, **filters},
        f"papers matching {query!r}",
    )
    return {"papers": [paper(p) for p in _data(body)], **_page(body, offset)}


async def paper_details(paper_id: str) -> PaperDetails:
    pid = ids.normalise(paper_id)
    body = await client.get(
        f"{GRAPH}/paper/{ids.path_segment(pid)}", {"fields": DETAIL_FIELDS}, f"paper {pid}"
    )
    return detailed(body)


async def citations(paper_id: str, *, direction: str, limit: int, offset: int) -> CitationPage:
    """Papers citing `paper_id` (direction "citations") or cited by it ("references")."""
    pid = ids.normalise(paper_id)
    body = await client.get(
        f"{GRAPH}/paper/{ids.path_segment(pid)}/{direction}",
        {"fields": CITATION_FIELDS, "limit": limit, "offset": offset},
        f"{direction} of paper {pid}",
    )
    inner = "citingPaper" if direction == "citations" else "citedPaper"
    items: list[Citation] = []
    for edge in _data(body):
        linked = edge.get(inner)
        if not isinstance(linked, dict) or not linked.get("paperId"):
            continue  # the API lists edges to papers it cannot resolve with a null paperId
        items.append(
            {
                "paper": paper(linked),
                "contexts": _texts(edge.get("contexts"))[:5],
                "intents": _texts(edge.get("intents")),
                "is_influential": edge.get("isInfluential") is True,
            }
        )
    page: _CitationPageWithTotal = {
        "paper_id": pid,
        "direction": direction,
        "items": items,
        **_page(body, offset),
    }
    return page


async def recommendations(paper_id: str, *, limit: int, pool: str) -> Recommendations:
    pid = ids.normalise(paper_id)
    body = await client.get(
        f"{RECOMMENDATIONS}/papers/forpaper/{ids.path_segment(pid)}",
        {"fields": LIST_FIELDS, "limit": limit, "from": pool},
        f"recommendations for paper {pid}",
    )
    found = [p for p in body.get("recommendedPapers") or [] if isinstance(p, dict)]
    return {"paper_id": pid, "papers": [paper(p) for p in found]}


async def search_authors(query: str, *, limit: int, offset: int) -> AuthorPage:
    body = await client.get(
        f"{GRAPH}/author/search",
        {"query": query, "limit": limit, "offset": offset, "fields": AUTHOR_FIELDS},
        f"authors matching {query!r}",
    )
    return {"authors": [author(a) for a in _data(body)], **_page(body, offset)}
