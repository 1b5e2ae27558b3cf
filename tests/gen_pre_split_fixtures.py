#!/usr/bin/env python3
"""Reference pieces of the byte-level BPE pre-tokenizers HeadScope splits by hand
(core/tokenize/split_stages.h), from Python's `regex` module (Debian python3-regex),
which has the \\p classes std::regex lacks.

Each pre-tokenizer type llama.cpp names in tokenizer.ggml.pre is its list of regexes
(llama.cpp's src/llama-vocab.cpp); as tokenizer.json's Sequence of Split with behavior
"Isolated", each regex splits every piece of the one before into its matches and the
text between them.

Run:  /usr/bin/python3 tests/gen_pre_split_fixtures.py > tests/fixtures/tokenizers/pre_splits.json
"""
import json
import sys

import regex

GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
          r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2 = LLAMA3.replace(r"\p{N}{1,3}", r"\p{N}")
# DeepSeek-LLM's letter class as llama.cpp writes it; the six characters that Unicode
# normalisation would change (KELVIN SIGN, OHM SIGN, Greek compatibility letters) are
# escaped so that no editor or copy turns them into their canonical equivalents.
CASED = ("A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝ"
         "Ὗ-\u1f7dᾀ-ᾴᾶ-ᾼ\u1fbeῂ-ῄῆ-ῌῐ-\u1fd3ῖ-\u1fdbῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\u2126ℨ\u212a-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳ"
         "Ꙁ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃")
CJK = "[一-龥ࠀ-一가-퟿]+"

PRES = {
    "default": [r"[\p{P}\$\+<=>\^~\|]+", GPT2, r"\p{N}+", "[0-9][0-9][0-9]"],
    "gpt-2": [GPT2],
    "llama-bpe": [LLAMA3],
    "qwen2": [QWEN2],
    "deepseek-llm": ["[\r\n]", r"\s?[" + CASED + "]+", r"\s?[!-/:-~！-／：-～‘-‟　-。]+", r"\s+$", CJK, r"\p{N}+"],
    "deepseek-coder": ["[\r\n]", r"\s?\p{L}+", r"\s?\p{P}+", CJK, r"\p{N}"],
    "falcon": [r"[\p{P}\$\+<=>\^~\|`]+", GPT2, "[0-9][0-9][0-9]"],
    "mpt": [GPT2],
    "starcoder": [r"\p{N}", GPT2],
    "refact": [r"\p{N}", GPT2],
}

TEXTS = [
    "Hello world",
    "They'll say it's fine, but we've seen THEY'RE wrong.",
    "In 2024, 1234567 people paid $3.50 each (about 12%).",
    "def f(x):\n    return x**2  # squared\r\n",
    "x=1+2^3|y~z`q` <a href='#'>link</a> @user #tag",
    "我爱北京天安门，今天天气很好。",
    "小猫坐在垫子上。她说：“你好！”然后走了。",
    "你好　世界　３个苹果",
    "안녕하세요 세계, 반갑습니다!",
    "Καλημέρα κόσμε· ῐ ᾼ \u1fbe \u2126 \u212a-ℭ",
    "Привет, мир! Как дела?",
    "ＡＢＣ！１２３ ａｂｃ？",
    "I \u2764\ufe0f \U0001f355!! \U0001f600\U0001f600",
    "  lead\t\ttabs  \n\n trail   ",
    "\u201cquoted\u201d and \u2018single\u2019 \u2026 done",
    "Roman \u216b, half \u00bd, Arabic-Indic \u0663\u0664\u0665, superscript x\u00b2",
    "µ-law ǅ ʔ ʕ Ͷͷ Ա Ⴀ Ꭰ ᏸ Ა ᴀ ᵫ Ḁ ℂ Ⰰ Ꙁ Ꜣ ꭰ ﬀ 𐐀 𐒰 𐲀 𑢠 𞤀",
    "ends with spaces \t ",
    "\n",
    "",
    "a",
    "   ",
    "mixed中文English混合123abc",
    "tab\tsep\u00a0nbsp\u3000ideo",
]


def isolated(pattern, text):
    pieces, gap = [], 0
    for m in regex.finditer(pattern, text):
        if m.end() == m.start():
            continue
        if gap < m.start():
            pieces.append(text[gap:m.start()])
        pieces.append(m.group())
        gap = m.end()
    if gap < len(text):
        pieces.append(text[gap:])
    return pieces


def split(stages, text):
    pieces = [text]
    for pattern in stages:
        pieces = [q for p in pieces for q in isolated(pattern, p)]
    return pieces


def main():
    out = {"texts": TEXTS, "regexes": PRES, "pieces": {}}
    for name, stages in PRES.items():
        out["pieces"][name] = [[p for p in split(stages, t) if p] for t in TEXTS]
        for t, ps in zip(TEXTS, out["pieces"][name]):
            assert "".join(ps) == t, (name, t)
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
