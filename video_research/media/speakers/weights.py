"""The speaker models' weights, from the wheels that ship them, checked and read without torch.

`silero-vad` (MIT) ships its voice-activity model as ONNX; `resemblyzer` (Apache-2.0)
ships its GE2E speaker encoder as `pretrained.pt`, a torch checkpoint. Both packages
declare torch as a dependency, which this project never installs: they are installed
with `--no-deps` (the Makefile) and only their data files are used. Neither package is
imported (their `__init__` imports torch): the files are found through the import
system's spec, and each is checked against the SHA-256 of the released file before a
byte of it is parsed, so a damaged or swapped file is refused rather than run.

`pretrained.pt` is torch's legacy serialization: a magic number, a protocol version and
the system info, each pickled; the pickled checkpoint, whose tensors point at storages
by key; the pickled list of storage keys; then each storage's raw little-endian bytes,
prefixed by its element count. The checkpoint is unpickled by `_Checkpoint`, which
builds only an OrderedDict and tensors (as numpy arrays) and refuses every other class,
so the file cannot run code.
"""

from __future__ import annotations

import collections
import hashlib
import importlib.util
import io
import pickle
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

VAD_PACKAGE = "silero_vad"
VAD_FILE = "data/silero_vad_16k_sequence.onnx"
VAD_SHA256 = "9ccdacc4719d8aa7e45a77536bfabec45a03ba1f2fad5e241ab4060b24238a85"
ENCODER_PACKAGE = "resemblyzer"
ENCODER_FILE = "pretrained.pt"
ENCODER_SHA256 = "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e"
LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "LongStorage": np.int64}


class WeightsError(Exception):
    """The speaker models are missing or not the released files. Plain (picklable)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __reduce__(self) -> tuple[Any, ...]:
        return (WeightsError, (self.message, self.hint))


INSTALL_HINT = (
    "Install the speaker models' packages without their dependencies (they would pull in "
    'torch): pip install --no-deps "silero-vad==6.2.3" "resemblyzer==0.1.4" (make install '
    "does this)."
)


def package_file(package: str, name: str) -> Path | None:
    """`name` inside the installed `package`, found without importing it; None when the
    package is not installed."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / name
        if candidate.is_file():
            return candidate
    return None


def missing() -> list[str]:
    """The speaker packages that are not installed (pip names)."""
    found = {
        "silero-vad": package_file(VAD_PACKAGE, VAD_FILE),
        "resemblyzer": package_file(ENCODER_PACKAGE, ENCODER_FILE),
    }
    return [name for name, path in found.items() if path is None]


def checked_bytes(path: Path | None, expected: str, what: str) -> bytes:
    """The file's bytes when their SHA-256 is `expected`; WeightsError otherwise."""
    if path is None:
        raise WeightsError(f"The {what} is not installed.", INSTALL_HINT)
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected:
        raise WeightsError(
            f"The {what} at {path} is not the released file (SHA-256 {digest[:16]}..., "
            f"expected {expected[:16]}...); it was not loaded.",
            "Reinstall it: " + INSTALL_HINT,
        )
    return data


def vad_model() -> bytes:
    """silero-vad's sequence ONNX model (16 kHz), checked."""
    return checked_bytes(package_file(VAD_PACKAGE, VAD_FILE), VAD_SHA256, "voice-activity model")


def encoder_state(path: Path | None = None, expected: str = ENCODER_SHA256) -> dict[str, Any]:
    """resemblyzer's GE2E encoder weights as {name: float32 array}, checked and read
    without torch (`path`: the file, default the installed package's)."""
    path = path or package_file(ENCODER_PACKAGE, ENCODER_FILE)
    data = checked_bytes(path, expected, "speaker encoder (resemblyzer's pretrained.pt)")
    try:
        checkpoint = read_legacy_checkpoint(data)
        state = checkpoint["model_state"]
        return {name: np.asarray(value, np.float32) for name, value in state.items()}
    except (KeyError, TypeError, ValueError, pickle.UnpicklingError, struct.error) as exc:
        raise WeightsError(
            f"The speaker encoder could not be read ({exc}).", INSTALL_HINT
        ) from None


@dataclass
class _TensorRef:
    """A tensor whose storage is read after the checkpoint: (key, offset, size, stride)."""

    key: str
    offset: int
    size: tuple[int, ...]
    stride: tuple[int, ...]


class _StorageType:
    def __init__(self, name: str) -> None:
        self.name = name


def _rebuild_tensor_v2(storage: Any, offset: int, size: Any, stride: Any, *_: Any) -> _TensorRef:
    key, _dtype = storage
    return _TensorRef(key, int(offset), tuple(size), tuple(stride))


class _Checkpoint(pickle.Unpickler):
    """Builds only what a state dict holds; any other class is refused."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file)
        self.storages: dict[str, Any] = {}

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor_v2
        if module == "torch" and name in _DTYPES:
            return _StorageType(name)
        raise pickle.UnpicklingError(f"refused to load {module}.{name} from the checkpoint")

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError("unexpected persistent id in the checkpoint")
        _, kind, key, _location, _numel = pid[:5]
        if not isinstance(kind, _StorageType):
            raise pickle.UnpicklingError("unexpected storage type in the checkpoint")
        self.storages[str(key)] = _DTYPES[kind.name]
        return (str(key), _DTYPES[kind.name])


class _Plain(pickle.Unpickler):
    """The header and key list are plain values: no class at all."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused to load {module}.{name}")


def read_legacy_checkpoint(data: bytes) -> Any:
    """A torch legacy-format checkpoint with its tensors as numpy arrays."""
    stream = io.BytesIO(data)
    if _Plain(stream).load() != LEGACY_MAGIC:
        raise ValueError("not a torch legacy checkpoint")
    _Plain(stream).load()  # protocol version
    _Plain(stream).load()  # system info
    reader = _Checkpoint(stream)
    checkpoint = reader.load()
    keys = _Plain(stream).load()
    arrays: dict[str, np.ndarray] = {}
    for key in keys:
        dtype = np.dtype(reader.storages[str(key)]).newbyteorder("<")
        (count,) = struct.unpack("<q", stream.read(8))
        raw = stream.read(count * dtype.itemsize)
        if count < 0 or len(raw) != count * dtype.itemsize:
            raise ValueError("the checkpoint's storage is truncated")
        arrays[str(key)] = np.frombuffer(raw, dtype)
    return _resolve(checkpoint, arrays)


def _resolve(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    if isinstance(value, _TensorRef):
        base = arrays[value.key]
        need = (
            value.offset
            + sum((n - 1) * s for n, s in zip(value.size, value.stride, strict=False))
            + 1
        )
        if any(n == 0 for n in value.size):
            return np.zeros(value.size, base.dtype)
        if value.offset < 0 or need > base.size or any(s < 0 for s in value.stride):
            raise ValueError("a tensor reaches outside its storage")
        item = base.itemsize
        return np.lib.stride_tricks.as_strided(
            base[value.offset :], value.size, tuple(s * item for s in value.stride)
        ).copy()
    if isinstance(value, dict):
        return {key: _resolve(item, arrays) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_resolve(item, arrays) for item in value)
    return value
