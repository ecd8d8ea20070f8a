"""Speech regions with silero-vad's sequence ONNX model: one ONNX call per block of up
to 512 frames of 32 ms (512 samples, each with the previous frame's last 64 samples as
context, as the streaming model keeps), the LSTM state carried between blocks."""

from __future__ import annotations

import numpy as np

FRAME = 512
CONTEXT = 64
BLOCK = 512
FRAME_SECONDS = FRAME / 16000


class Vad:
    def __init__(self, model: bytes) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.inter_op_num_threads = 1
        options.intra_op_num_threads = 1
        self.session = ort.InferenceSession(
            model, sess_options=options, providers=["CPUExecutionProvider"]
        )

    def probabilities(self, audio: np.ndarray) -> np.ndarray:
        """Speech probability of each 32 ms frame, a block of frames at a time."""
        count = (audio.size + FRAME - 1) // FRAME
        h = np.zeros((1, 1, 128), np.float32)
        c = np.zeros((1, 1, 128), np.float32)
        context = np.zeros(CONTEXT, np.float32)
        out = []
        for first in range(0, count, BLOCK):
            frames = np.zeros((min(BLOCK, count - first), FRAME), np.float32)
            piece = audio[first * FRAME : (first + len(frames)) * FRAME]
            frames.reshape(-1)[: piece.size] = piece
            contexts = np.empty((len(frames), CONTEXT), np.float32)
            contexts[0] = context
            contexts[1:] = frames[:-1, -CONTEXT:]
            context = frames[-1, -CONTEXT:].copy()
            block = np.concatenate((contexts, frames), axis=1)
            probs, h, c = self.session.run(
                ["speech_probs", "hn", "cn"], {"input": block, "h": h, "c": c}
            )
            out.append(np.asarray(probs).reshape(-1))
        return np.concatenate(out) if out else np.zeros(0, np.float32)


def regions(
    probs: np.ndarray,
    threshold: float = 0.5,
    min_speech: float = 0.25,
    min_silence: float = 0.3,
    pad: float = 0.03,
) -> list[tuple[float, float]]:
    """(start, end) seconds of speech: frames above `threshold` (kept until the
    probability falls below threshold - 0.15, silero's hysteresis), gaps shorter than
    `min_silence` bridged, runs shorter than `min_speech` dropped."""
    low = threshold - 0.15
    spans: list[list[float]] = []
    speaking = False
    for n, p in enumerate(probs):
        if not speaking and p >= threshold:
            speaking = True
            spans.append([n * FRAME_SECONDS, (n + 1) * FRAME_SECONDS])
        elif speaking:
            if p < low:
                speaking = False
            else:
                spans[-1][1] = (n + 1) * FRAME_SECONDS
    merged: list[list[float]] = []
    for span in spans:
        if merged and span[0] - merged[-1][1] < min_silence:
            merged[-1][1] = span[1]
        else:
            merged.append(span)
    total = len(probs) * FRAME_SECONDS
    return [(max(0.0, s - pad), min(total, e + pad)) for s, e in merged if e - s >= min_speech]
