"""Paper identifiers: whatever a user pastes, as the Graph API's `{paper_id}` path segment.

The API takes its own 40-hex ID and prefixed external IDs (`CorpusId:`, `DOI:`, `ARXIV:`,
`MAG:`, `ACL:`, `PMID:`, `PMCID:`, `URL:`). People paste bare DOIs, arXiv IDs and links,
so those are recognised and prefixed here; anything else is refused with the forms that
work, before a request is spent on it.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit

from video_research.support.errors import invalid_input

PREFIXES = {
    "corpusid": "CorpusId",
    "doi": "DOI",
    "arxiv": "ARXIV",
    "mag": "MAG",
    "acl": "ACL",
    "pmid": "PMID",
    "pmcid": "PMCID",
    "url": "URL",
}
_S2_ID = re.compile(r"^[0-9a-fA-F]{40}$")
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_ARXIV = re.compile(r"^(\d{4}\.\d{4,5}(v\d+)?|[a-z\-]+(\.[A-Z]{2})?/\d{7}(v\d+)?)$")
_URL_HOSTS = ("semanticscholar.org", "arxiv.org", "aclweb.org", "aclanthology.org", "acm.org")
_S2_PAPER_PATH = re.compile(r"/paper/(?:[^/]+/)?([0-9a-fA-F]{40})$")

FORMS_HINT = (
    "Pass a Semantic Scholar paper ID (40 hex characters), a DOI (10.1234/abc or DOI:10.1234/abc), "
    "an arXiv ID (2106.15928 or ARXIV:2106.15928), CorpusId:12345, PMID:..., or a "
    "semanticscholar.org, arxiv.org, doi.org or ACL Anthology link."
)


def normalise(raw: str) -> str:
    """The API form of a paper identifier, or invalid_input saying which forms work."""
    text = raw.strip()
    if not text or any(ch.isspace() for ch in text) or "\0" in text:
        raise invalid_input(f"{raw!r} is not a paper identifier.", hint=FORMS_HINT)
    prefix, sep, rest = text.partition(":")
    if sep and prefix.lower() in PREFIXES and prefix.lower() != "url" and rest:
        return _checked(f"{PREFIXES[prefix.lower()]}:{rest}", raw)
    if _S2_ID.match(text):
        return text.lower()
    if _DOI.match(text):
        return _checked(f"DOI:{text}", raw)
    if _ARXIV.match(text):
        return f"ARXIV:{text}"
    if text.lower().startswith(("http://", "https://")) or prefix.lower() == "url":
        return _from_url(text[4:] if prefix.lower() == "url" else text, raw)
    raise invalid_input(
        f"{raw!r} is not a paper identifier Semantic Scholar knows.", hint=FORMS_HINT
    )


def _from_url(url: str, raw: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = unquote(parts.path)
    if host.endswith("doi.org") and _DOI.match(path.lstrip("/")):
        return _checked(f"DOI:{path.lstrip('/')}", raw)
    if host.endswith("arxiv.org"):
        match = re.match(r"^/(?:abs|pdf)/(.+?)(?:\.pdf)?$", path)
        if match and _ARXIV.match(match.group(1)):
            return f"ARXIV:{match.group(1)}"
    if host.endswith("semanticscholar.org"):
        match = _S2_PAPER_PATH.search(path.rstrip("/"))
        if match:
            return match.group(1).lower()
    if any(host == h or host.endswith("." + h) for h in _URL_HOSTS):
        return _checked(f"URL:{url}", raw)
    raise invalid_input(f"{raw!r} is a link Semantic Scholar cannot resolve.", hint=FORMS_HINT)


def _checked(value: str, raw: str) -> str:
    if ".." in value.split("/") or "/../" in value or value.endswith("/.."):
        raise invalid_input(f"{raw!r} is not a paper identifier.", hint=FORMS_HINT)
    return value


def path_segment(paper_id: str) -> str:
    """The identifier escaped for the URL path (DOIs keep their slashes, as the API expects)."""
    return quote(paper_id, safe=":/")
