"""Which URLs the server may send to Gemini or fetch itself: the one check every URL passes.

    url = await url_policy.check_url(url, settings)              # sent to Gemini
    url = await url_policy.check_url(url, settings, fetch=True)  # fetched by this server

Both refuse with an `invalid_input` ToolFailure, before any billable or outgoing call:
- a scheme other than http or https (`javascript:`, `file:`, `data:`, `ftp:` ...);
- credentials in the URL (`https://user:pass@host/`);
- whitespace, control characters or backslashes anywhere in it (parsers disagree on
  them: `http://a.com\\@127.0.0.1/` is a.com to a browser and 127.0.0.1 to urllib);
- a host that is, or resolves to, a private, loopback, link-local, shared (CGNAT),
  multicast, reserved or unspecified address, in any spelling (`127.1`, `2130706433`,
  `0x7f.0.0.1`, `[::1]`, `[::ffff:127.0.0.1]`, 6to4/NAT64 wrappers of those);
- special-use names (`localhost`, `*.localhost`, `*.local`, `*.internal` such as
  metadata.google.internal, `*.home.arpa`) and names without a dot, which no public
  resolver answers.
Every address a name resolves to must be public: one private answer refuses the URL.

Name resolution runs in a worker thread, bounded by VIDEO_RESEARCH_URL_RESOLVE_TIMEOUT.
A name that does not resolve here (no such name, no network, or the timeout) means:
- for a URL sent to Gemini: allowed. Gemini resolves it from Google's network, not
  ours, and our resolver may simply not see it (split DNS, an offline machine). What
  the policy keeps from Gemini is what we can see pointing inward; a name we cannot
  resolve points nowhere we know.
- for a URL this server fetches (`fetch=True`): refused. We would be the ones
  connecting, and a name we cannot check is one we must not connect to. Either way it
  is a `network` failure (retryable), never a refusal: the lookup failed (a misspelt
  name, no DNS), so the allow-list hint would mislead.

VIDEO_RESEARCH_URL_ALLOWLIST opens the check for local deployments: a comma list of
host names (`wiki.corp.example`, or `*.corp.example` for a domain and its subdomains)
and address ranges (`10.0.0.0/8`, `192.168.1.20`). An allowed name skips the address
check; an address passes when it lies in an allowed range. Scheme and credential rules
always apply.

Tests swap the resolver with `use_resolver` (a deliberate seam, like the SDKs' base
URLs): it is the only way to make a public-looking name resolve to 169.254.169.254
without editing /etc/hosts.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ipaddress
import logging
import re
import socket
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, unquote, urlsplit

from video_research.support.errors import ErrorCategory, ToolFailure
from video_research.support.services import current_settings

if TYPE_CHECKING:
    from video_research.config import Settings

logger = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""(host, port) -> the addresses it resolves to; raises OSError when it does not resolve."""

MAX_URL_LENGTH = 8192
ALLOWED_SCHEMES = ("http", "https")
SPECIAL_USE_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa", ".localdomain")
SPECIAL_USE_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})

_FORBIDDEN_CHARS = re.compile(r"[\s\x00-\x1f\x7f\\]")
_LEGACY_IPV4 = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}\.?$", re.I)
_HOST_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)+")
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:/*)[^/?#]*@")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")

HINT = (
    "Pass a public http(s) URL without credentials. For a service on your own network, "
    "add its host or address range to VIDEO_RESEARCH_URL_ALLOWLIST."
)


@dataclass(frozen=True)
class CheckedURL:
    """A URL that passed the policy, with what was checked (addresses: empty when the
    name did not resolve here, or when an allow-listed name skipped resolution)."""

    url: str
    host: str
    port: int
    addresses: tuple[str, ...]


async def check_url(url: str, settings: Settings | None = None, *, fetch: bool = False) -> str:
    """`url` (trimmed) when it may be sent to Gemini (or fetched, with `fetch=True`)."""
    return (await check(url, settings, fetch=fetch)).url


async def check(url: str, settings: Settings | None = None, *, fetch: bool = False) -> CheckedURL:
    """check_url with the details: the host, port and addresses that were checked.

    A fetcher should connect to `addresses` (not resolve the name again), so a name that
    changes its answer between the check and the connection cannot slip through.
    """
    if settings is None:
        settings = current_settings()
    url = url.strip() if isinstance(url, str) else ""
    parts = _parse(url)
    host = _host(parts, url)
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    allow = _allow_list(tuple(settings.url_allowlist))
    if _name_allowed(host, allow.names):
        return CheckedURL(url, host, port, ())
    literal = parse_ip(host)
    if literal is not None:
        _check_address(literal, host, url, allow.networks)
        return CheckedURL(url, host, port, (str(literal),))
    _check_name(host, url)
    addresses = await _resolve(host, port, url, settings, fetch=fetch)
    for address in addresses:
        parsed = parse_ip(address)
        if parsed is None:  # pragma: no cover - resolvers return numeric addresses
            continue
        _check_address(parsed, host, url, allow.networks, resolved=True)
    return CheckedURL(url, host, port, tuple(addresses))


# ----------------------------------------------------------------------------- parsing


def _refuse(
    message: str, url: str, category: ErrorCategory = ErrorCategory.INVALID_INPUT
) -> ToolFailure:
    """The refusal, quoting the URL with any user:password replaced (never echoed)."""
    shown = _USERINFO.sub(r"\1***@", url)
    shown = shown if len(shown) <= 200 else shown[:200] + "..."
    return ToolFailure(category, f"{message}: {shown!r}", hint=HINT)


def _parse(url: str) -> SplitResult:
    if not url:
        raise ToolFailure(ErrorCategory.INVALID_INPUT, "The URL is empty.", hint=HINT)
    if len(url) > MAX_URL_LENGTH:
        raise ToolFailure(
            ErrorCategory.INVALID_INPUT,
            f"The URL is {len(url)} characters long; at most {MAX_URL_LENGTH} are accepted.",
            hint=HINT,
        )
    if _FORBIDDEN_CHARS.search(url):
        raise _refuse("URL refused (whitespace, control characters or backslashes)", url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise _refuse(f"Invalid URL ({exc})", url) from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        what = f"scheme {scheme!r}" if scheme else "no scheme"
        raise _refuse(f"URL refused ({what}; only http and https)", url)
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise _refuse("URL refused (credentials in the URL)", url)
    return parts


def _host(parts: SplitResult, url: str) -> str:
    raw = parts.hostname or ""
    host = unquote(raw).rstrip(".").lower()  # browsers percent-decode the host
    if not host:
        raise _refuse("URL refused (no host)", url)
    return host


def parse_ip(host: str) -> IPAddress | None:
    """The address a host string denotes when it is an IP literal, in any spelling a
    browser or libc accepts (dotted, integer, hex, octal, short forms, bracketed IPv6)."""
    text = host.strip("[]")
    if "%" in text:  # IPv6 zone id: fe80::1%eth0
        text = text.split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if _LEGACY_IPV4.match(text):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text.rstrip(".")))
        except OSError:
            return None
    return None


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one wraps (mapped, compatible, 6to4, NAT64), if any."""
    if address.version != 6:
        return None
    assert isinstance(address, ipaddress.IPv6Address)
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    packed = int(address)
    if packed >> 32 == 0 and packed > 1:  # deprecated IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(packed)
    return None


def is_public(address: IPAddress) -> bool:
    """True for a globally routable unicast address (the wrapped IPv4 one included)."""
    inner = _embedded_ipv4(address)
    if inner is not None and not is_public(inner):
        return False
    return bool(address.is_global) and not address.is_multicast


# ----------------------------------------------------------------------------- checks


@dataclass(frozen=True)
class _AllowList:
    names: tuple[str, ...]
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


_allow_cache: dict[tuple[str, ...], _AllowList] = {}


def _allow_list(entries: tuple[str, ...]) -> _AllowList:
    cached = _allow_cache.get(entries)
    if cached is not None:
        return cached
    names: list[str] = []
    networks = []
    for entry in entries:
        entry = entry.strip().lower()
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
        except ValueError:
            names.append(entry.rstrip("."))
    made = _AllowList(tuple(names), tuple(networks))
    _allow_cache[entries] = made
    return made


def _name_allowed(host: str, names: tuple[str, ...]) -> bool:
    for name in names:
        if name.startswith("*."):
            if host == name[2:] or host.endswith(name[1:]):
                return True
        elif host == name:
            return True
    return False


def _check_address(
    address: IPAddress,
    host: str,
    url: str,
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...],
    *,
    resolved: bool = False,
) -> None:
    if is_public(address):
        return
    if any(address in network for network in networks if network.version == address.version):
        return
    inner = _embedded_ipv4(address)
    if inner is not None and any(inner in n for n in networks if n.version == 4):
        return
    kind = _kind(inner or address)
    where = f"{host} resolves to {address}" if resolved else f"{address}"
    raise _refuse(f"URL refused ({where} is a {kind} address)", url)


def _kind(address: IPAddress) -> str:
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if address.is_unspecified:
        return "unspecified"
    if address.is_private:
        return "private"
    return "reserved or non-public"


def _check_name(host: str, url: str) -> None:
    if host in SPECIAL_USE_NAMES or host.endswith(SPECIAL_USE_SUFFIXES):
        raise _refuse(f"URL refused ({host} is a local name)", url)
    if "." not in host:
        raise _refuse(f"URL refused ({host} is not a fully qualified public host name)", url)
    try:
        ascii_name = host.encode("idna").decode("ascii")
    except UnicodeError:
        ascii_name = ""
    if not _HOST_NAME.fullmatch(ascii_name):
        raise _refuse("URL refused (invalid host name)", url)


# ----------------------------------------------------------------------------- resolution


_dns_pool: concurrent.futures.ThreadPoolExecutor | None = None


async def _getaddrinfo(host: str, port: int) -> list[str]:
    """The system resolver, in threads of its own: a lookup that outlives its timeout
    keeps only a DNS thread busy, never the default pool that SQLite and files use."""
    global _dns_pool
    if _dns_pool is None:
        _dns_pool = concurrent.futures.ThreadPoolExecutor(4, thread_name_prefix="url-dns")

    def lookup() -> list[str]:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return sorted({str(info[4][0]) for info in infos})

    return await asyncio.get_running_loop().run_in_executor(_dns_pool, lookup)


_resolver: Resolver = _getaddrinfo


@contextlib.contextmanager
def use_resolver(resolver: Resolver) -> Iterator[None]:
    """Resolve names with `resolver` inside the block (tests; see the module docstring)."""
    global _resolver
    previous = _resolver
    _resolver = resolver
    try:
        yield
    finally:
        _resolver = previous


async def _resolve(host: str, port: int, url: str, settings: Settings, *, fetch: bool) -> list[str]:
    timeout = settings.url_resolve_timeout_seconds
    try:
        return list(await asyncio.wait_for(_resolver(host, port), timeout))
    except TimeoutError:
        if fetch:
            raise ToolFailure(
                ErrorCategory.NETWORK,
                f"Could not resolve {host} within {timeout:g} s.",
                hint="Retry; if it persists check the server's DNS, or raise VIDEO_RESEARCH_URL_RESOLVE_TIMEOUT.",
            ) from None
        logger.info("url policy: %s did not resolve within %g s; left to Gemini", host, timeout)
        return []
    except UnicodeError as exc:
        if fetch:
            raise _refuse(f"URL refused ({host} is not a valid host name: {exc})", url) from None
        logger.debug("url policy: %s is not a valid name here (%s); left to Gemini", host, exc)
        return []
    except OSError as exc:
        if fetch:
            # Not a refusal: the policy never saw an address. A name that does not
            # resolve is a spelling mistake or a network without DNS, both the caller's
            # to check and worth retrying; the allow-list would not help.
            raise ToolFailure(
                ErrorCategory.NETWORK,
                f"Could not look up {host}: {exc}.",
                hint=f"Check the spelling of {host} and the server's network and DNS, then retry.",
            ) from None
        logger.debug("url policy: %s does not resolve here (%s); left to Gemini", host, exc)
        return []
