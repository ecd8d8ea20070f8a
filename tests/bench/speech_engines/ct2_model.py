"""Read a CTranslate2 Whisper model (model.bin, vocabulary.txt, config.json) into numpy
arrays named as OpenAI's Whisper checkpoint names them.

The bundled faster-whisper model is the only copy of Whisper base on this machine (the
Hugging Face Hub and GitHub releases are out of reach), so the other engines' model files
are made from it: then every engine runs the same weights and the comparison measures the
engine, not the checkpoint. CTranslate2's model.bin layout (ctranslate2/specs/model_spec.py
`_serialize`): uint32 binary version, the spec name, uint32 revision, uint32 variable
count, then per variable its name, uint8 rank, uint32 dims, uint8 dtype id, uint32 byte
count and the bytes; then uint32 alias count and (alias, target) name pairs. Strings are a
uint16 length (with the trailing NUL) then UTF-8 bytes and the NUL.

Standard library and numpy only: it runs in the bench venv as well as in the server's.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

_DTYPES = ("float32", "int8", "int16", "int32", "float16", "bfloat16")


@dataclass(frozen=True)
class WhisperDims:
    """OpenAI Whisper's ModelDimensions, derived from the tensors' shapes."""

    n_mels: int
    n_vocab: int
    n_audio_ctx: int
    n_audio_state: int
    n_audio_head: int
    n_audio_layer: int
    n_text_ctx: int
    n_text_state: int
    n_text_head: int
    n_text_layer: int


def read_ct2(model_bin: bytes) -> dict[str, np.ndarray]:
    """Every variable of a CTranslate2 model.bin by its CT2 name (aliases resolved)."""
    view = memoryview(model_bin)
    offset = 0

    def unpack(fmt: str) -> int:
        nonlocal offset
        (value,) = struct.unpack_from(fmt, view, offset)
        offset += struct.calcsize(fmt)
        return value

    def string() -> str:
        nonlocal offset
        length = unpack("<H")
        text = bytes(view[offset : offset + length - 1]).decode("utf-8")
        offset += length
        return text

    version = unpack("<I")
    if version < 5:
        raise ValueError(f"CTranslate2 binary version {version} is older than this reader")
    spec = string()
    if spec != "WhisperSpec":
        raise ValueError(f"not a Whisper model: spec {spec!r}")
    unpack("<I")  # the spec revision: the layout below has not changed across revisions
    variables: dict[str, np.ndarray] = {}
    for _ in range(unpack("<I")):
        name = string()
        dims = [unpack("<I") for _ in range(unpack("<B"))]
        dtype = _DTYPES[unpack("<B")]
        size = unpack("<I")
        raw = bytes(view[offset : offset + size])
        offset += size
        if dtype == "bfloat16":
            array = (np.frombuffer(raw, "<u2").astype("<u4") << 16).view("<f4")
        else:
            array = np.frombuffer(raw, np.dtype(dtype).newbyteorder("<"))
        variables[name] = array.reshape(dims)
    for _ in range(unpack("<I")):
        alias, target = string(), string()
        variables[alias] = variables[target]
    return variables


def to_openai(
    ct2: dict[str, np.ndarray],
) -> tuple[dict[str, np.ndarray], WhisperDims]:
    """The weights under OpenAI Whisper's state-dict names (float16 as stored, biases
    included), and the model's dimensions.

    CT2 fuses self-attention's query, key and value into one `linear_0` (rows in that
    order; the key has no bias upstream, CT2 stores zeros for it) and cross-attention's key
    and value into `linear_1`; the out projections are the last linear of each.
    """
    out: dict[str, np.ndarray] = {}
    n_audio_layer = sum(
        1 for k in ct2 if k.endswith("self_attention/linear_1/weight") and k.startswith("encoder/")
    )
    n_text_layer = sum(
        1 for k in ct2 if k.endswith("self_attention/linear_1/weight") and k.startswith("decoder/")
    )

    def ln(dst: str, src: str) -> None:
        out[f"{dst}.weight"] = ct2[f"{src}/gamma"]
        out[f"{dst}.bias"] = ct2[f"{src}/beta"]

    def linear(dst: str, src: str, *, bias: bool = True) -> None:
        out[f"{dst}.weight"] = ct2[f"{src}/weight"]
        if bias:
            out[f"{dst}.bias"] = ct2[f"{src}/bias"]

    def split(src: str, names: list[str], prefix: str) -> None:
        weight, bias = ct2[f"{src}/weight"], ct2[f"{src}/bias"]
        parts = len(names)
        for index, (w, b) in enumerate(
            zip(np.split(weight, parts), np.split(bias, parts), strict=True)
        ):
            out[f"{prefix}.{names[index]}.weight"] = w
            if names[index] != "key":
                out[f"{prefix}.{names[index]}.bias"] = b
            elif np.any(b != 0):
                raise ValueError(f"{src}: the key bias is not zero; Whisper has none")

    def block(side: str, layer: int, cross: bool) -> None:
        # In the order of OpenAI's state dict (and so of whisper.cpp's upstream files).
        src, dst = f"{side}/layer_{layer}", f"{side}.blocks.{layer}"
        split(f"{src}/self_attention/linear_0", ["query", "key", "value"], f"{dst}.attn")
        linear(f"{dst}.attn.out", f"{src}/self_attention/linear_1")
        ln(f"{dst}.attn_ln", f"{src}/self_attention/layer_norm")
        if cross:
            linear(f"{dst}.cross_attn.query", f"{src}/attention/linear_0")
            split(f"{src}/attention/linear_1", ["key", "value"], f"{dst}.cross_attn")
            linear(f"{dst}.cross_attn.out", f"{src}/attention/linear_2")
            ln(f"{dst}.cross_attn_ln", f"{src}/attention/layer_norm")
        linear(f"{dst}.mlp.0", f"{src}/ffn/linear_0")
        linear(f"{dst}.mlp.2", f"{src}/ffn/linear_1")
        ln(f"{dst}.mlp_ln", f"{src}/ffn/layer_norm")

    out["encoder.positional_embedding"] = ct2["encoder/position_encodings/encodings"]
    linear("encoder.conv1", "encoder/conv1")
    linear("encoder.conv2", "encoder/conv2")
    for layer in range(n_audio_layer):
        block("encoder", layer, cross=False)
    ln("encoder.ln_post", "encoder/layer_norm")
    out["decoder.positional_embedding"] = ct2["decoder/position_encodings/encodings"]
    out["decoder.token_embedding.weight"] = ct2["decoder/embeddings/weight"]
    for layer in range(n_text_layer):
        block("decoder", layer, cross=True)
    ln("decoder.ln", "decoder/layer_norm")
    if not np.array_equal(ct2["decoder/projection/weight"], ct2["decoder/embeddings/weight"]):
        raise ValueError("the output projection is not tied to the token embedding")
    dims = WhisperDims(
        n_mels=int(ct2["encoder/conv1/weight"].shape[1]),
        n_vocab=int(ct2["decoder/embeddings/weight"].shape[0]),
        n_audio_ctx=int(ct2["encoder/position_encodings/encodings"].shape[0]),
        n_audio_state=int(ct2["encoder/position_encodings/encodings"].shape[1]),
        n_audio_head=int(ct2["encoder/num_heads"]),
        n_audio_layer=n_audio_layer,
        n_text_ctx=int(ct2["decoder/position_encodings/encodings"].shape[0]),
        n_text_state=int(ct2["decoder/position_encodings/encodings"].shape[1]),
        n_text_head=int(ct2["decoder/num_heads"]),
        n_text_layer=n_text_layer,
    )
    return out, dims


def mel_filters(n_mels: int, sample_rate: int = 16000, n_fft: int = 400) -> np.ndarray:
    """Slaney-scaled mel filters (n_mels x (n_fft/2 + 1)), as librosa.filters.mel makes
    them and OpenAI ships them in mel_filters.npz; faster-whisper computes the same."""
    fftfreqs = np.fft.rfftfreq(n=n_fft, d=1.0 / sample_rate)
    mels = np.linspace(0.0, 45.245640471924965, n_mels + 2)
    f_sp = 200.0 / 3
    freqs = f_sp * mels
    min_log_hz = 1000.0
    min_log_mel = min_log_hz / f_sp
    logstep = np.log(6.4) / 27.0
    log_t = mels >= min_log_mel
    freqs[log_t] = min_log_hz * np.exp(logstep * (mels[log_t] - min_log_mel))
    fdiff = np.diff(freqs)
    ramps = freqs.reshape(-1, 1) - fftfreqs.reshape(1, -1)
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    # float32 before the Slaney scaling, as librosa rounds it: the same bits as OpenAI's
    # mel_filters.npz.
    weights = np.maximum(0.0, np.minimum(lower, upper)).astype(np.float32)
    weights *= (2.0 / (freqs[2 : n_mels + 2] - freqs[:n_mels]))[:, None]
    return weights


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level BPE alphabet reversed: printable stand-in character -> byte."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


def text_tokens(vocabulary: str) -> list[bytes]:
    """The byte strings of the text tokens (those before <|endoftext|>), in id order, from
    CT2's vocabulary.txt (one byte-level BPE token per line)."""
    lines = vocabulary.split("\n")
    end = lines.index("<|endoftext|>")
    decoder = _byte_decoder()
    return [bytes(decoder[c] for c in token) for token in lines[:end]]
