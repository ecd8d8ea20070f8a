"""The committed lecture fixture, copied under the test's file root."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "fixtures" / "media"


@pytest.fixture
def truth() -> dict:
    """lecture.json: the slides' texts and times, the spoken sentences and their times."""
    return json.loads((FIXTURES / "lecture.json").read_text())


@pytest.fixture
def lecture(tmp_path) -> Path:
    """lecture.mp4 under tmp_path (the test's VIDEO_RESEARCH_FILE_ROOTS)."""
    target = tmp_path / "lecture.mp4"
    shutil.copyfile(FIXTURES / "lecture.mp4", target)
    return target
