"""What a registry, a package index and a user see of the release: one version, taken from
pyproject.toml everywhere; `server.json` valid against the official MCP Registry's
published schema and saying what the package and its settings are; the README's
`mcp-name:` marker, which the registry reads on PyPI to verify the package is this server;
and a CHANGELOG whose newest entry is this version.

The registry's schema is vendored (tests/data/registry/server.schema.json): the test
machine reaches no network but package registries. It is the file the registry publishes
at its `$id`, from modelcontextprotocol/registry docs/reference/server-json/server.schema.json
(commit 7c0bbf25bcdf794c4622afbf1b72b99d0281ca6b, MIT licence). When the registry publishes
a newer schema, replace the file and the `$schema` in server.json together.
"""

from __future__ import annotations

import json
import re
import tomllib

import jsonschema
import pytest

from tests.helpers import REPO_ROOT
from video_research import __version__
from video_research.cli import main
from video_research.config import env_names, secret_fields

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
SERVER = json.loads((REPO_ROOT / "server.json").read_text())
SCHEMA = json.loads((REPO_ROOT / "tests" / "data" / "registry" / "server.schema.json").read_text())


def test_the_version_has_one_source(capsys):
    assert __version__ == PYPROJECT["version"]
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"video-research {PYPROJECT['version']}"


def test_server_json_is_valid_against_the_registry_schema():
    assert SERVER["$schema"] == SCHEMA["$id"]
    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(SERVER), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_the_schema_rejects_what_the_registry_rejects():
    """The vendored schema is the real one, not a stand-in that accepts anything."""
    validator = jsonschema.Draft7Validator(SCHEMA)
    for broken in (
        {**SERVER, "name": "no-namespace"},
        {**SERVER, "description": "x" * 101},
        {**SERVER, "packages": [{**SERVER["packages"][0], "version": "latest"}]},
        {k: v for k, v in SERVER.items() if k != "version"},
    ):
        assert list(validator.iter_errors(broken))


def test_server_json_describes_this_package_and_its_settings():
    (package,) = SERVER["packages"]
    assert package["registryType"] == "pypi"
    assert package["identifier"] == PYPROJECT["name"]
    assert SERVER["version"] == package["version"] == PYPROJECT["version"]
    assert package["transport"] == {"type": "stdio"}
    assert PYPROJECT["scripts"][PYPROJECT["name"]] == "video_research.cli:main"
    names = set(env_names().values())
    secrets = {env_names()[field] for field in secret_fields()}
    for variable in package["environmentVariables"]:
        assert variable["name"] in names, f"{variable['name']} is no setting"
        assert variable.get("isSecret", False) == (variable["name"] in secrets)
    listed = {variable["name"] for variable in package["environmentVariables"]}
    assert {"GEMINI_API_KEY", "YOUTUBE_API_KEY", "VIDEO_RESEARCH_FILE_ROOTS"} <= listed


def test_the_readme_carries_the_registry_marker():
    """The registry verifies a PyPI package by this line in its description (the README)."""
    readme = (REPO_ROOT / PYPROJECT["readme"]).read_text()
    assert f"mcp-name: {SERVER['name']}" in readme


def test_the_changelog_starts_with_this_version():
    changelog = (REPO_ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[?([^\]\s]+)\]?", changelog, flags=re.M)
    released = [v for v in versions if v.lower() != "unreleased"]
    assert released and released[0] == PYPROJECT["version"]


def test_the_wheel_names_in_the_docs_are_this_version():
    """The README's and docs' `uvx --from dist/<wheel>` lines are copied as they stand."""
    for page in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        for version in re.findall(
            r"video_research-(\d[^-\s]*)-py3-none-any\.whl", page.read_text()
        ):
            assert version == PYPROJECT["version"], page.name
