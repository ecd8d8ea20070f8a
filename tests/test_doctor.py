"""`video-research doctor`: every engine a call needs loaded and run on input doctor makes
itself, a short table by default, and a non-zero exit naming the fix when one is broken
(here: speech weights damaged the way a bad sector or an interrupted copy damages them)."""

from __future__ import annotations

import random

from tests.helpers import run_cli
from video_research.cli import main

ENGINES = ("decode", "speech", "ocr", "embedder", "keyword index", "vector index")


def _rows(out: str) -> dict[str, str]:
    """The table's rows by check name (names may hold one space: "keyword index")."""
    rows = {}
    for line in out.splitlines():
        for name in (*ENGINES, "store knowledge"):
            if line.startswith(name + "  "):
                rows[name] = line[len(name) :].strip()
    return rows


def test_a_good_install_passes_every_engine_in_a_short_table(server_env):
    done = run_cli(server_env, "doctor", timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = _rows(done.stdout)
    assert set(ENGINES) <= set(rows), done.stdout
    for name in ENGINES:
        assert rows[name].startswith("ok "), rows[name]
    assert "bundled weights match Systran/faster-whisper-base" in rows["speech"]
    assert "Doctor42tides" in rows["ocr"].replace(" ", "")
    assert "not created yet" in rows["store knowledge"]
    # Short: the settings only with --verbose.
    assert len(done.stdout.splitlines()) < 25
    assert "Settings (source" not in done.stdout and "GEMINI_API_KEY" not in done.stdout


def test_damaged_speech_weights_are_named_with_the_fix(tmp_path, monkeypatch, capsys, live_config):
    """The bundled model copied to a folder SPEECH_MODEL names (as a user keeps a model),
    then 4 KB in the middle of model.bin overwritten: it would still load and run, so only
    the weights' hash tells."""
    from video_research import doctor
    from video_research.media import speech

    folder = tmp_path / "whisper-base"
    folder.mkdir()
    for name, data in speech.bundled_files().items():
        (folder / name).write_bytes(data)
    assert "matches Systran/faster-whisper-base" in doctor.verify_model_dir(folder)

    weights = folder / "model.bin"
    with weights.open("r+b") as handle:
        handle.seek(weights.stat().st_size // 2)
        handle.write(random.Random(62).randbytes(4096))
    monkeypatch.setenv("SPEECH_MODEL", str(folder))
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    rows = _rows(out)
    assert rows["speech"].startswith("broken"), out
    assert "does not match Systran/faster-whisper-base" in rows["speech"]
    assert f"Fix: Copy or download the model again into {folder}" in rows["speech"]
    assert "1 broken: speech" in out
    for name in set(ENGINES) - {"speech"}:
        assert rows[name].startswith("ok "), rows[name]
