"""Keep secrets out of every line the server writes: logs, tool errors, CLI output.

Two nets: the exact values of configured secrets (registered when config loads), and
patterns that look like credentials (Google API keys, `key=` query parameters, bearer
tokens, passwords in URLs) for secrets we were never told about.
"""

from __future__ import annotations

import re
import threading

MASK = "[REDACTED]"

_lock = threading.Lock()
_secrets: set[str] = set()

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"AIza[0-9A-Za-z_\-]{20,}"), MASK),
    (re.compile(r"(?i)([?&](?:key|api_key|apikey|access_token|token)=)[^&\s\"']+"), r"\1" + MASK),
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]{8,}"), r"\1" + MASK),
    (re.compile(r"(?i)(x-goog-api-key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"), r"\1" + MASK),
    # The scheme starts at a word boundary: without `\b` the engine tried `\w+` from every
    # letter of a long word, and 100,000 letters in one argument took 18 s per line.
    (re.compile(r"(?i)\b(\w+://[^/\s:@]+:)[^@\s/]+@"), r"\1" + MASK + "@"),
]


def register_secret(value: str | None) -> None:
    """Remember a secret value so every later `redact` masks it wherever it appears."""
    if value and len(value) >= 4:
        with _lock:
            _secrets.add(value)


def redact(text: str) -> str:
    if not text:
        return text
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text
