"""The URL policy: http(s) only, no credentials, nothing that points inward, before any call."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from video_research.config import load_settings
from video_research.support import url_policy
from video_research.support.errors import ToolFailure


def fake_dns(table: dict[str, list[str]]):
    """A resolver answering from `table`; any other name does not exist."""

    async def resolve(host: str, port: int) -> list[str]:
        if host in table:
            return table[host]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    return resolve


def slow_dns(seconds: float):
    async def resolve(host: str, port: int) -> list[str]:
        import asyncio

        await asyncio.sleep(seconds)
        return ["93.184.216.34"]

    return resolve


DNS = {
    "loopback.example.com": ["127.0.0.1"],
    "metadata.example.com": ["169.254.169.254"],
    "mixed.example.com": ["93.184.216.34", "10.1.2.3"],
    "public.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "v6loop.example.com": ["::1"],
    "wiki.corp.example": ["10.0.0.5"],
    "mycorp.example": ["10.9.9.9"],
}


@pytest.fixture
def dns():
    with url_policy.use_resolver(fake_dns(DNS)):
        yield


def cfg(**env: str):
    return load_settings(env)


async def refused(url: str, *, fetch: bool = False, settings=None, category="invalid_input") -> str:
    with pytest.raises(ToolFailure) as info:
        await url_policy.check_url(url, settings or cfg(), fetch=fetch)
    assert info.value.category.value == category, info.value.message
    assert "VIDEO_RESEARCH_URL_ALLOWLIST" in info.value.hint or category != "invalid_input"
    return info.value.message


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("http://loopback.example.com/admin", "127.0.0.1 is a loopback"),
        ("http://metadata.example.com/computeMetadata/v1/", "169.254.169.254 is a link-local"),
        ("https://mixed.example.com/", "10.1.2.3 is a private"),
        ("https://v6loop.example.com/", "::1 is a loopback"),
    ],
)
async def test_names_resolving_inward_are_refused(dns, url, needle):
    for fetch in (False, True):
        assert needle in await refused(url, fetch=fetch)


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:8080/",
        "http://LOCALHOST./x",
        "http://api.localhost/",
        "http://printer.local/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://router.home.arpa/",
        "http://intranet/",
        "http://127.0.0.1/",
        "http://127.1/",
        "http://2130706433/",
        "http://0x7f.0.0.1/",
        "http://0177.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]:8000/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:a9fe:a9fe]/",
        "http://[fe80::1%25eth0]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:7f00:1::]/",
        "http://0.0.0.0/",
        "http://10.0.0.1/",
        "http://100.64.0.1/",
        "http://192.168.1.1/",
        "http://224.0.0.1/",
        "http://%6c%6f%63%61%6c%68%6f%73%74/",
    ],
)
async def test_inward_hosts_are_refused_without_a_lookup(url):
    async def no_lookup(host, port):  # pragma: no cover - must not be reached
        raise AssertionError(f"looked up {host}")

    with url_policy.use_resolver(no_lookup):
        await refused(url)


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("javascript:alert(1)", "scheme 'javascript'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("data:text/html,<b>x</b>", "scheme 'data'"),
        ("ftp://ftp.example.com/x", "scheme 'ftp'"),
        ("//example.com/x", "no scheme"),
        ("example.com/x", "no scheme"),
        ("https://user:secret@example.com/", "credentials"),
        ("https://user@example.com/", "credentials"),
        ("https://:@example.com/", "credentials"),
        ("http://example.com\\@127.0.0.1/", "backslashes"),
        ("http://exa mple.com/", "whitespace"),
        ("http://example.com/\x00", "control"),
        ("https://example.com:99999/", "Invalid URL"),
        ("https:///path-only", "no host"),
        ("http://ex%25ample.com/", "invalid host name"),
        ("", "empty"),
    ],
)
async def test_malformed_urls(url, needle):
    assert needle in await refused(url)


async def test_credentials_are_not_echoed_in_full(dns):
    message = await refused("https://user:hunter2@example.com/")
    assert "credentials" in message and "hunter2" not in message and "***@example.com" in message


async def test_public_urls_pass_and_are_trimmed(dns):
    settings = cfg()
    assert (
        await url_policy.check_url("  https://public.example.com/a?b=c  ", settings)
        == "https://public.example.com/a?b=c"
    )
    checked = await url_policy.check("https://public.example.com/", settings, fetch=True)
    assert checked.addresses == tuple(DNS["public.example.com"]) and checked.port == 443
    assert (await url_policy.check("http://93.184.216.34:8080/", settings)).addresses == (
        "93.184.216.34",
    )
    assert await url_policy.check_url("HTTPS://[2606:4700::1111]/", settings)


async def test_an_unresolvable_name_is_left_to_gemini_but_never_fetched(dns):
    settings = cfg()
    assert await url_policy.check_url("https://nowhere.example.org/", settings) == (
        "https://nowhere.example.org/"
    )
    with pytest.raises(ToolFailure) as info:
        await url_policy.check_url("https://nowhere.example.org/", settings, fetch=True)
    # A failed lookup is the network's, not a refusal: retryable, and no allow-list hint.
    failure = info.value.to_tool_error()
    assert failure.category == "network" and failure.retryable
    assert "Could not look up nowhere.example.org" in failure.error
    assert "ALLOWLIST" not in failure.hint and "spelling" in failure.hint
    assert "refused" not in failure.error.lower()


async def test_a_slow_resolver_is_bounded():
    settings = cfg(VIDEO_RESEARCH_URL_RESOLVE_TIMEOUT="0.05")
    with url_policy.use_resolver(slow_dns(5)):
        checked = await url_policy.check("https://slow.example.org/", settings)
        assert checked.addresses == ()
        await refused(
            "https://slow.example.org/", fetch=True, settings=settings, category="network"
        )


async def test_the_default_resolver_is_the_system_one():
    """No fake DNS: the real lookup runs in a worker thread and sees /etc/hosts."""
    addresses = await url_policy._getaddrinfo("localhost", 80)
    assert addresses and all(ipaddress.ip_address(a).is_loopback for a in addresses)


async def test_the_allow_list_opens_names_and_ranges(dns):
    settings = cfg(VIDEO_RESEARCH_URL_ALLOWLIST="*.corp.example, 127.0.0.0/8, ::1")
    assert await url_policy.check_url("http://wiki.corp.example/page", settings)
    assert await url_policy.check_url("http://corp.example/", settings)
    assert await url_policy.check_url("http://127.0.0.1:8080/", settings)
    assert await url_policy.check_url("http://loopback.example.com/", settings, fetch=True)
    assert await url_policy.check_url("http://[::1]/", settings)
    assert await url_policy.check_url("http://[::ffff:127.0.0.1]/", settings)
    await refused("http://169.254.169.254/", settings=settings)
    await refused("http://mycorp.example/", settings=settings)
    await refused("http://user:pw@wiki.corp.example/", settings=settings)
    await refused("javascript://wiki.corp.example/", settings=settings)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    st.sampled_from(
        ["127.0.0.0/8", "10.0.0.0/8", "169.254.0.0/16", "192.168.0.0/16", "172.16.0.0/12"]
    ),
    st.integers(min_value=0, max_value=2**32 - 1),
    st.sampled_from(["dotted", "integer", "hex", "mapped"]),
)
def test_every_spelling_of_an_inward_ipv4_address_is_refused(network, offset, spelling):
    net = ipaddress.ip_network(network)
    address = net[offset % net.num_addresses]
    host = {
        "dotted": str(address),
        "integer": str(int(address)),
        "hex": hex(int(address)),
        "mapped": f"[::ffff:{address}]",
    }[spelling]
    parsed = url_policy.parse_ip(host.strip("[]"))
    assert parsed is not None and not url_policy.is_public(parsed), host
