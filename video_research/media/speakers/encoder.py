"""The GE2E speaker encoder (resemblyzer's VoiceEncoder) in numpy: 40-channel mel power
frames (25 ms windows, 10 ms hop, 16 kHz; librosa's Slaney mel filters, not log), a
3-layer LSTM of 256 units, the last layer's final hidden state through a 256-unit linear
layer, ReLU and L2 normalisation. The same arithmetic as resemblyzer's torch module, with
the windows of one call run as one batch: each LSTM step is one matrix product for all
of them, which is what keeps the pass cheap beside the speech model.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

SAMPLE_RATE = 16000
N_FFT = 400  # 25 ms
HOP = 160  # 10 ms
N_MELS = 40
LAYERS = 3
TARGET_DBFS = -30.0
"""resemblyzer raises each utterance to this loudness (never lowers it) before the mel."""


def _hz_to_mel(freq: np.ndarray | float) -> np.ndarray:
    """Slaney's mel scale (librosa's default, htk=False): linear below 1 kHz, log above."""
    freq = np.asarray(freq, np.float64)
    mels = freq / (200.0 / 3)
    log_part = freq >= 1000.0
    mels = np.where(
        log_part, 15.0 + np.log(np.maximum(freq, 1e-10) / 1000.0) / (np.log(6.4) / 27.0), mels
    )
    return mels


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    mels = np.asarray(mels, np.float64)
    freqs = mels * (200.0 / 3)
    log_part = mels >= 15.0
    return np.where(log_part, 1000.0 * np.exp((np.log(6.4) / 27.0) * (mels - 15.0)), freqs)


@functools.cache
def mel_filters() -> np.ndarray:
    """(40, 201) triangular filters with Slaney area normalisation, as librosa.filters.mel."""
    fft_freqs = np.linspace(0, SAMPLE_RATE / 2, 1 + N_FFT // 2)
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(SAMPLE_RATE / 2), N_MELS + 2))
    fdiff = np.diff(mel_f)
    ramps = np.subtract.outer(mel_f, fft_freqs)
    weights = np.zeros((N_MELS, len(fft_freqs)))
    for i in range(N_MELS):
        lower = -ramps[i] / fdiff[i]
        upper = ramps[i + 2] / fdiff[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2 : N_MELS + 2] - mel_f[:N_MELS]))[:, None]
    return weights.astype(np.float32)


@functools.cache
def _window() -> np.ndarray:
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


def normalize_volume(wav: np.ndarray) -> np.ndarray:
    """Raised to TARGET_DBFS when quieter (resemblyzer's preprocessing)."""
    rms = float(np.sqrt(np.mean(np.square(wav, dtype=np.float64)))) if wav.size else 0.0
    if rms <= 1e-9:
        return wav
    change = TARGET_DBFS - 20 * np.log10(rms)
    return wav if change < 0 else wav * np.float32(10 ** (change / 20))


MEL_BLOCK = 8192
"""Frames transformed at a time: an hour of audio is 360,000 frames, whose spectra at
once would take gigabytes."""


def mel_frames(wav: np.ndarray) -> np.ndarray:
    """(frames, 40) mel power spectrogram, centred frames with zero padding (librosa's
    melspectrogram at resemblyzer's settings), computed a block of frames at a time."""
    padded = np.pad(wav.astype(np.float32, copy=False), N_FFT // 2)
    count = 1 + (padded.size - N_FFT) // HOP
    frames = np.lib.stride_tricks.as_strided(
        padded, (count, N_FFT), (padded.strides[0] * HOP, padded.strides[0]), writeable=False
    )
    out = np.empty((count, N_MELS), np.float32)
    filters = mel_filters().T
    for first in range(0, count, MEL_BLOCK):
        spectrum = np.fft.rfft(frames[first : first + MEL_BLOCK] * _window(), axis=1)
        power = (spectrum.real**2 + spectrum.imag**2).astype(np.float32)
        out[first : first + MEL_BLOCK] = power @ filters
    return out


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


class Encoder:
    """resemblyzer's VoiceEncoder forward pass on (batch, frames, 40) mel arrays."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.layers = [
            (
                np.ascontiguousarray(state[f"lstm.weight_ih_l{n}"].T),
                np.ascontiguousarray(state[f"lstm.weight_hh_l{n}"].T),
                state[f"lstm.bias_ih_l{n}"] + state[f"lstm.bias_hh_l{n}"],
            )
            for n in range(LAYERS)
        ]
        self.linear_w = np.ascontiguousarray(state["linear.weight"].T)
        self.linear_b = state["linear.bias"]

    def embed(self, mels: np.ndarray) -> np.ndarray:
        """(batch, 256) unit vectors, one per window of mel frames."""
        batch, steps, _ = mels.shape
        sequence = mels.astype(np.float32)
        hidden = np.zeros((batch, 256), np.float32)
        for number, (w_ih, w_hh, bias) in enumerate(self.layers):
            gates_in = (sequence.reshape(batch * steps, -1) @ w_ih + bias).reshape(batch, steps, -1)
            hidden = np.zeros((batch, 256), np.float32)
            cell = np.zeros((batch, 256), np.float32)
            last = number == LAYERS - 1
            outputs = None if last else np.empty((batch, steps, 256), np.float32)
            for t in range(steps):
                gates = gates_in[:, t] + hidden @ w_hh
                i = _sigmoid(gates[:, :256])
                f = _sigmoid(gates[:, 256:512])
                g = np.tanh(gates[:, 512:768])
                o = _sigmoid(gates[:, 768:])
                cell = f * cell + i * g
                hidden = o * np.tanh(cell)
                if outputs is not None:
                    outputs[:, t] = hidden
            if outputs is not None:
                sequence = outputs
        raw = np.maximum(hidden @ self.linear_w + self.linear_b, 0.0)
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        return raw / np.maximum(norms, 1e-9)
