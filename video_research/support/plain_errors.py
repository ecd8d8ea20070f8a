"""Schema failures in plain words: what the caller sent, and what to send instead.

python-jsonschema's messages speak the schema's language (`'not a url' is too short`,
`'javascript:x' does not match '^\\s*[Hh][Tt][Tt][Pp][Ss]?://'`): true, but a user cannot
act on a regular expression or a character count. `describe` turns one ValidationError
into a sentence that names the field, shows what was sent (short, secrets masked) and
says what is accepted.

Per keyword there is one generic sentence. Where that is not enough (a pattern has no
words of its own), the property's schema says it: `x-error` is the exact advice for a
malformed value ("not a web address; send an http(s) URL such as ..."), else its
`description` is quoted as what is accepted. A pattern's regex is never shown: without
either hint the message says the value "is not in the accepted form" and points at the
field's description in tools/list. `x-error` is dropped from what tools/list publishes
(server/schema_compaction.py): it only ever shows up in an error.
"""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING, Any

from video_research.support.redact import MASK, redact

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

ERROR_HINT = "x-error"
"""The schema keyword holding plain advice for a malformed value of that property."""

_SHOWN_CHARS = 60
_SYNONYMS = (
    frozenset({"k", "top_k", "topk", "limit", "max_results", "num_results", "n", "count"}),
    frozenset({"query", "q", "question", "search", "search_query", "prompt"}),
    frozenset({"path", "paths", "file", "file_path", "filepath", "folder", "directory", "dir"}),
    frozenset({"video_id", "video_ids", "id", "youtube_id", "video"}),
)
"""Names that mean the same to a caller: a field sent under one of them is likely the
tool's own field of the same group (`top_k` for `k`, `limit` where a tool says `k`),
which spelling alone (difflib) does not find."""
_SECRET_WORDS = ("token", "secret", "password", "api_key", "apikey", "credential")
_TYPE_NAMES = {
    "string": "a text string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a JSON object",
    "null": "null",
}
_FORMATS = {
    "date-time": "an RFC 3339 timestamp such as 2026-01-31T12:00:00Z",
    "date": "a date such as 2026-01-31",
    "uuid": "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
    "uri": "an absolute URL such as https://example.com/page",
    "email": "an e-mail address",
}
# Patterns the schemas share, said in words: the fallback when a property has no hint.
_KNOWN_PATTERNS = {
    "^https?://": "is not an http(s) URL: only http and https URLs are accepted; send a URL "
    "that starts with https:// or http://",
    "^\\s*[Hh][Tt][Tt][Pp][Ss]?://": "is not an http(s) URL: only http and https URLs are "
    "accepted; send a URL that starts with https:// or http://",
}


def field_name(error: ValidationError) -> str:
    """The failing field as a user writes it: `url`, `items[2].title`, or `arguments`."""
    parts: list[str] = []
    for part in error.absolute_path:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            parts.append(f".{part}" if parts else str(part))
    return "".join(parts) or "arguments"


def _is_secret(error: ValidationError) -> bool:
    names = [str(p).lower() for p in error.absolute_path if isinstance(p, str)]
    return any(word in name for name in names for word in _SECRET_WORDS)


def shown(value: Any, *, secret: bool = False) -> str:
    """`value` as a short quote: truncated, with every known secret masked."""
    if secret:
        return MASK
    if isinstance(value, str):
        value = redact(value)  # before truncating: a cut secret no longer matches
        text = repr(value if len(value) <= _SHOWN_CHARS else value[:_SHOWN_CHARS] + "...")
    elif isinstance(value, dict):
        text = "an object" if value else "an empty object"
    elif isinstance(value, list):
        text = (
            f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
            if value
            else "an empty list"
        )
    else:
        text = json.dumps(value, default=str)
        text = text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."
    return redact(text)


def _kind(value: Any) -> str:
    for name, test in (
        ("true or false", lambda v: isinstance(v, bool)),
        ("null", lambda v: v is None),
        ("a whole number", lambda v: isinstance(v, int)),
        ("a number", lambda v: isinstance(v, float)),
        ("a text string", lambda v: isinstance(v, str)),
        ("a list", lambda v: isinstance(v, list)),
        ("a JSON object", lambda v: isinstance(v, dict)),
    ):
        if test(value):
            return name
    return type(value).__name__


def _types(expected: Any) -> str:
    names = [expected] if isinstance(expected, str) else list(expected)
    words = [_TYPE_NAMES.get(name, name) for name in names]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _accepted(schema: Any) -> str:
    """What the property's schema says it takes, as a trailing clause ('' if nothing)."""
    if isinstance(schema, dict) and isinstance(schema.get("description"), str):
        return f" ({schema['description'].rstrip('.')})"
    return ""


def _with_hint(field: str, value: str, hint: str) -> str:
    """`hint` is a predicate ("is not a web address; send ...") or a rule ("only ...")."""
    if hint.startswith(("is ", "contains ")):
        return f"{field}: {value} {hint}."
    return f"{field}: {value} is not accepted: {hint}."


def _hint(schema: Any) -> str | None:
    if isinstance(schema, dict) and isinstance(schema.get(ERROR_HINT), str):
        return schema[ERROR_HINT]
    return None


def _numbers(schema: dict[str, Any]) -> str:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None:
        return f"send a number from {low} to {high}"
    if low is not None:
        return f"send a number of at least {low}"
    return f"send a number of at most {high}"


def _describe_pattern(error: ValidationError, field: str, value: str) -> str:
    hint = _hint(error.schema) or _KNOWN_PATTERNS.get(str(error.validator_value))
    if hint:
        return _with_hint(field, value, hint)
    description = error.schema.get("description") if isinstance(error.schema, dict) else None
    if isinstance(description, str):
        said = description.rstrip(".")
        said = said[0].lower() + said[1:] if said[1:2].islower() or said[1:2] == " " else said
        return f"{field}: {value} is not in the accepted form; send {said}."
    return (
        f"{field}: {value} is not in the accepted form; see the description of {field} in "
        "tools/list."
    )


def _describe_any_of(error: ValidationError, field: str, value: str) -> str:
    branches = error.validator_value if isinstance(error.validator_value, list) else []
    if branches and all(isinstance(b, dict) and set(b) == {"required"} for b in branches):
        names = [" and ".join(b["required"]) for b in branches]
        where = "" if field == "arguments" else f" in {field}"
        return f"Send {' or '.join(names)}{where}: none of them was given."
    from jsonschema.exceptions import best_match

    best = best_match(error.context or [])
    if best is not None:
        return describe(best)
    return f"{field}: {value} is none of the accepted forms{_accepted(error.schema)}."


def _likely_fields(name: str, known: list[str]) -> list[str]:
    """The accepted field `name` most likely meant: the one accepted field of its synonym
    group (`_SYNONYMS`), else the closest spelling."""
    lowered = name.lower()
    for group in _SYNONYMS:
        if lowered in group:
            same = [field for field in known if field in group]
            if len(same) == 1:
                return same
    return difflib.get_close_matches(name, known, n=1)


def describe(error: ValidationError) -> str:
    """One plain sentence for one schema failure: the field, what was sent, what to send."""
    field = field_name(error)
    secret = _is_secret(error)
    value = shown(error.instance, secret=secret)
    kind = error.validator
    expected = error.validator_value
    schema = error.schema if isinstance(error.schema, dict) else {}
    if kind == "type":
        if isinstance(error.instance, dict | list):
            return f"{field}: got {_kind(error.instance)}; send {_types(expected)}."
        return f"{field}: {value} is {_kind(error.instance)}; send {_types(expected)}."
    if kind == "required":
        present = error.instance if isinstance(error.instance, dict) else {}
        missing = [name for name in expected if name not in present]
        props = schema.get("properties", {})
        said = "; ".join(f"{name}{_accepted(props.get(name))}" for name in missing)
        where = "" if field == "arguments" else f" in {field}"
        return f"Missing required field{'s' if len(missing) != 1 else ''}{where}: {said}."
    if kind == "enum":
        options = ", ".join(json.dumps(v) for v in expected)
        close = difflib.get_close_matches(str(error.instance), [str(v) for v in expected], n=1)
        guess = f" (did you mean {close[0]!r}?)" if close and not secret else ""
        return f"{field}: {value} is not accepted{guess}; send one of: {options}."
    if kind == "const":
        return f"{field}: {value} is not accepted; send exactly {json.dumps(expected)}."
    if kind == "pattern":
        return _describe_pattern(error, field, value)
    if kind in ("minLength", "format") and (hint := _hint(schema)):
        return _with_hint(field, value, hint)
    if kind == "minLength":
        if expected == 1:
            return f"{field}: the text is empty; send at least one character{_accepted(schema)}."
        return (
            f"{field}: {value} has {len(error.instance)} characters; send at least "
            f"{expected}{_accepted(schema)}."
        )
    if kind == "maxLength":
        return (
            f"{field}: the text is {len(error.instance):,} characters long; send at most "
            f"{expected:,}."
        )
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        relation = {
            "minimum": "below the minimum",
            "exclusiveMinimum": "not above",
            "maximum": "above the maximum",
            "exclusiveMaximum": "not below",
        }[kind]
        return f"{field}: {value} is {relation} {expected}; {_numbers(schema)}."
    if kind == "additionalProperties":
        known = sorted(schema.get("properties", {}))
        present = error.instance if isinstance(error.instance, dict) else {}
        extra = [name for name in present if name not in known]
        # each sent name as the message shows it: cut short, credentials masked
        sent = {name: repr(redact(name[:_SHOWN_CHARS])) for name in extra}
        # One unknown field names its likely fix alone; several say which goes where.
        guesses = [
            f"{close[0]!r}" if len(extra) == 1 else f"{sent[name]} -> {close[0]!r}"
            for name in extra
            if (close := _likely_fields(name, known))
        ]
        guess = f" (did you mean {', '.join(guesses)}?)" if guesses else ""
        where = "" if field == "arguments" else f" in {field}"
        return (
            f"Unknown field{'s' if len(extra) != 1 else ''}{where}: "
            f"{', '.join(sent.values())}{guess}; "
            f"accepted fields: {', '.join(known) or '(none)'}."
        )
    if kind == "format":
        wanted = _FORMATS.get(str(expected), f"a valid {expected}")
        return f"{field}: {value} is not {wanted}; send {wanted}."
    if kind == "minItems":
        if expected == 1:
            return f"{field}: the list is empty; send at least one item."
        return f"{field}: {value} is too few; send at least {expected} items."
    if kind == "maxItems":
        return f"{field}: {value} is too many; send at most {expected} items."
    if kind == "uniqueItems":
        return f"{field}: the list repeats an item; send each item once."
    if kind in ("anyOf", "oneOf"):
        return _describe_any_of(error, field, value)
    if kind in ("minProperties", "maxProperties"):
        bound = "at least" if kind == "minProperties" else "at most"
        return f"{field}: {value} has {len(error.instance)} entries; send {bound} {expected}."
    if kind == "dependentRequired":
        present = error.instance if isinstance(error.instance, dict) else {}
        pairs = [
            f"{name} needs {', '.join(n for n in needs if n not in present)}"
            for name, needs in expected.items()
            if name in present and any(n not in present for n in needs)
        ]
        return f"{field}: {'; '.join(pairs) or 'a field needs another'}; send them together."
    if kind == "not":
        return f"{field}: {value} is not accepted here{_accepted(schema)}."
    if kind == "multipleOf":
        return f"{field}: {value} is not accepted; send a multiple of {expected}."
    return f"{field}: {value} is not accepted here{_accepted(schema)}."
