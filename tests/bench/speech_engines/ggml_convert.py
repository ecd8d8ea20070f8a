"""Write a Whisper model in whisper.cpp's legacy ggml format from OpenAI-named weights.

The layout is the one whisper.cpp's models/convert-pt-to-ggml.py writes and
src/whisper.cpp's loader reads (all little-endian int32 unless said): the magic
0x67676d6c; n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx,
n_text_state, n_text_head, n_text_layer, n_mels, ftype (1 = float16); the mel filters
(n_mel, n_fft, then float32 values); the text tokens (count, then length + bytes each);
then per tensor n_dims, name length, type (0 = f32, 1 = f16), the dims innermost first,
the name and the data. Like the upstream converter, 1-D tensors, the conv biases (as
[n, 1]) and both positional embeddings are float32 and the matrices stay float16.

With `q8_0`, the 2-D matrices are written as ggml's Q8_0 blocks (32 weights: a float16
scale, amax / 127, then 32 int8 values rounded from weight / scale), as whisper.cpp's
`quantize` tool makes them (examples/common-ggml.cpp: 2-D tensors only, positional
embeddings skipped) and the file's ftype becomes 2007 (quantization version 2 x 1000 + 7).
This is whisper.cpp's counterpart of CTranslate2's int8, which faster-whisper runs.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np

from tests.bench.speech_engines.ct2_model import WhisperDims, mel_filters, text_tokens

_MAGIC = 0x67676D6C
_F32, _F16, _Q8_0 = 0, 1, 8
_FTYPE_F16, _FTYPE_Q8_0 = 1, 2 * 1000 + 7
_Q8_BLOCK = 32
_FLOAT32_NAMES = {
    "encoder.conv1.bias",
    "encoder.conv2.bias",
    "encoder.positional_embedding",
    "decoder.positional_embedding",
}


def quantize_q8_0(matrix: np.ndarray) -> bytes:
    """ggml's quantize_row_q8_0_ref over every row of a 2-D float matrix."""
    blocks = matrix.astype(np.float32).reshape(-1, _Q8_BLOCK)
    scale = np.abs(blocks).max(axis=1) / 127.0
    inverse = np.divide(1.0, scale, out=np.zeros_like(scale), where=scale != 0)
    values = np.round(blocks * inverse[:, None]).astype(np.int8)
    packed = np.empty(len(blocks), dtype=[("d", "<f2"), ("qs", "i1", _Q8_BLOCK)])
    packed["d"] = scale.astype("<f2")
    packed["qs"] = values
    return packed.tobytes()


def write_ggml(
    out: BinaryIO,
    weights: dict[str, np.ndarray],
    dims: WhisperDims,
    vocabulary: str,
    *,
    q8_0: bool = False,
) -> None:
    out.write(struct.pack("<i", _MAGIC))
    out.write(
        struct.pack(
            "<11i",
            dims.n_vocab,
            dims.n_audio_ctx,
            dims.n_audio_state,
            dims.n_audio_head,
            dims.n_audio_layer,
            dims.n_text_ctx,
            dims.n_text_state,
            dims.n_text_head,
            dims.n_text_layer,
            dims.n_mels,
            _FTYPE_Q8_0 if q8_0 else _FTYPE_F16,
        )
    )
    filters = mel_filters(dims.n_mels)
    out.write(struct.pack("<ii", *filters.shape))
    out.write(filters.astype("<f4").tobytes())
    tokens = text_tokens(vocabulary)
    out.write(struct.pack("<i", len(tokens)))
    for token in tokens:
        out.write(struct.pack("<i", len(token)))
        out.write(token)
    for name, array in weights.items():
        data = np.squeeze(array)
        if name in ("encoder.conv1.bias", "encoder.conv2.bias"):
            data = data.reshape(data.shape[0], 1)
        if data.ndim < 2 or name in _FLOAT32_NAMES:
            ttype, payload = _F32, data.astype("<f4").tobytes()
        elif q8_0 and data.ndim == 2 and data.shape[-1] % _Q8_BLOCK == 0:
            ttype, payload = _Q8_0, quantize_q8_0(data)
        else:
            ttype, payload = _F16, np.ascontiguousarray(data.astype("<f2")).tobytes()
        encoded = name.encode("utf-8")
        out.write(struct.pack("<iii", data.ndim, len(encoded), ttype))
        out.write(struct.pack(f"<{data.ndim}i", *reversed(data.shape)))
        out.write(encoded)
        out.write(payload)


def convert(model_bin: bytes, vocabulary: str, target: Path, *, q8_0: bool = False) -> Path:
    """Convert a CTranslate2 Whisper model to `target` (written whole, then renamed)."""
    from tests.bench.speech_engines.ct2_model import read_ct2, to_openai

    weights, dims = to_openai(read_ct2(model_bin))
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        write_ggml(out, weights, dims, vocabulary, q8_0=q8_0)
    partial.replace(target)
    return target
