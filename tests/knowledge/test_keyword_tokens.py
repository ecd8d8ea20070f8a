"""Counting a query's tokens in a text (the rescoring's shortcut) equals tokenising it."""

from __future__ import annotations

import random
from collections import Counter

from video_research.knowledge.keyword_tokens import count_terms, query_tokens, tokens

# ASCII words, digits and punctuation; CJK; a katakana middle dot (in the CJK ranges but
# not a word character); Hangul; letters with diacritics and compatibility forms that
# NFKD changes (full-width A, circled 1, the fi ligature).
ALPHABET = [*"ab1_ .-\n", *"注意力机制模型", "・", "ー", "가", "é", "É", "ß", "Ａ", "①", "ﬁ"]


def _exact(text: str, terms: list[str]) -> Counter:
    wanted = set(terms)
    return Counter(token for token in tokens(text) if token in wanted)


def test_counts_equal_full_tokenisation_on_mixed_script_text():
    rng = random.Random(1)
    checked = 0
    for _ in range(3000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))
        query = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12)))
        terms = query_tokens(query) + list(dict.fromkeys(tokens(text)))[: rng.randint(0, 4)]
        if terms:
            assert Counter(count_terms(text, terms)) == _exact(text, terms), (text, terms)
            checked += 1
    assert checked > 2000


def test_counts_in_plain_ascii_and_real_sentences():
    text = "The model_2 (GPT-4) beat the model; THE end. the_end 2017"
    terms = ["the", "model", "model_2", "gpt", "4", "end", "the_end", "2017", "absent"]
    assert count_terms(text, terms) == _exact(text, terms)
    assert count_terms(text, terms) == {
        "the": 3,
        "model": 1,
        "model_2": 1,
        "gpt": 1,
        "4": 1,
        "end": 1,
        "the_end": 1,
        "2017": 1,
    }
    mixed = "我们用GPT4模型和Transformer做了2017年的注意力机制 Café"
    terms = query_tokens("GPT4 模型 transformer 注意力 2017年 cafe")
    assert count_terms(mixed, terms) == _exact(mixed, terms)
    assert count_terms(mixed, terms)["gpt4"] == 1 and count_terms(mixed, terms)["cafe"] == 1
