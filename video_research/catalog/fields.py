"""Checks on the text and URLs of a catalog entry, from whichever source it comes.

A catalog entry is shown to people (titles in a chat, a player's playlist) and its URLs
are opened by players and bots, so:

- IDs, titles and categories hold no control characters: a NUL truncates the value in C
  code downstream and other controls forge lines or drive terminals. A title's tabs and
  line breaks (a CSV cell typed over two lines) become spaces; any other control
  character refuses the entry.
- `manifest_url` and `thumbnail_url` are http(s) URLs with a host: `javascript:`,
  `data:` and `file:` URLs are refused, and so are hosts that only make sense as an
  attack on whoever opens the URL: link-local addresses (169.254.0.0/16, fe80::/10,
  where cloud metadata services answer), the unspecified address, multicast, and the
  metadata service's host names. Loopback and private addresses stay allowed: a home
  media server on the LAN is a normal place for a video to play from.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

URL_SCHEMES = ("http", "https")
_CONTROL = re.compile("[\x00-\x1f\x7f]")
_LINE_BREAKS = re.compile("[\t\r\n]+")
_LEGACY_IPV4 = re.compile(r"[0-9a-fx.]+")
_METADATA_HOSTS = frozenset({"metadata", "metadata.google.internal", "metadata.goog"})


def no_control(value: str, field: str) -> str:
    """`value` unchanged; ValueError when it holds a control character (NUL included)."""
    found = _CONTROL.search(value)
    if found:
        raise ValueError(f"{field} contains the control character {found.group()!r}; remove it")
    return value


def one_line_title(value: str, field: str = "title") -> str:
    """A title with its tabs and line breaks turned into spaces; other control characters
    refused."""
    return no_control(_LINE_BREAKS.sub(" ", value), field)


def media_url(value: str, field: str) -> str:
    """`value` stripped when it is an http(s) URL a player may open; ValueError naming
    what is wrong otherwise."""
    url = value.strip()
    no_control(url, field)
    if any(char.isspace() for char in url):
        raise ValueError(f"{field} contains spaces; percent-encode them (%20)")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:
        raise ValueError(f"{field} is not a valid URL: {exc}") from None
    if parts.scheme.lower() not in URL_SCHEMES or not host:
        raise ValueError(
            f"{field} must be an http:// or https:// URL with a host, not "
            f"{url[:60]!r} (javascript:, data: and file: URLs are refused)"
        )
    if _forbidden_host(host):
        raise ValueError(
            f"{field} points at {host}, a link-local, multicast or metadata-service "
            "address; give the address players really fetch the video from"
        )
    return url


def _forbidden_host(host: str) -> bool:
    name = host.lower().rstrip(".")
    if name in _METADATA_HOSTS:
        return True
    try:
        address = ipaddress.ip_address(name.split("%")[0])
    except ValueError:
        if not _LEGACY_IPV4.fullmatch(name):
            return False
        try:  # 2852039166, 0xa9fea9fe, 169.254.43518: still an IPv4 address to a client
            address = ipaddress.IPv4Address(socket.inet_aton(name))
        except OSError:
            return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_link_local or address.is_multicast or address.is_unspecified
