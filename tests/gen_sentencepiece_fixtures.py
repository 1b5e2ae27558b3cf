#!/usr/bin/python3
"""A tiny SentencePiece BPE model and its Hugging Face tokenizer.json, with reference ids.

Trains a BPE model with byte fallback on a small English and Chinese text, the way
Llama-2's tokenizer is set up (identity normalization, a dummy prefix, whitespace kept),
with Debian's python3-sentencepiece. Writes into tests/fixtures/tokenizers/spm_bpe/:

  tokenizer.model        the model (the protobuf SentencePiece writes)
  tokenizer.json         the same vocabulary as Hugging Face's LlamaConverter writes it:
                         BPE with byte_fallback, merges derived from the scores (every split
                         of a piece into two pieces, ordered by the piece's score), a
                         Prepend("▁") + Replace(" ", "▁") normalizer, <s> added by a
                         TemplateProcessing post-processor
  tokenizer_metaspace.json  the same with the newer layout: no normalizer, a Metaspace
                         pre-tokenizer (prepend_scheme "first", split false)
  expected.json          for each test string, SentencePiece's own ids (BOS first) and its
                         decoded text

and into tests/fixtures/tokenizers/spm_unigram/ a Unigram model with SentencePiece's default
normalization (nmt_nfkc: full-width letters, ligatures and compatibility characters folded,
runs of spaces squeezed), tokenizer.model and expected.json, for the library-backed reader
of tokenizer.model files (T5, ALBERT and XLNet use Unigram).

Regenerate: /usr/bin/python3 tests/gen_sentencepiece_fixtures.py  (scripts/deps.sh --fixtures)
"""
import io
import json
import os

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fixtures", "tokenizers", "spm_bpe")

CORPUS = """Once upon a time, there was a little girl named Lily. She loved to play outside in the park.
One day, she saw a big red ball under the tree. The ball was shiny and round.
Tom and Lily played with the ball all day. They were very happy together.
The cat sat on the mat. The dog ran after the cat, and then the cat ran up the tree.
从前有一个小女孩，她叫莉莉。她喜欢在公园里玩。
有一天，她看到树下有一个大红球。小猫坐在垫子上。
""" * 4

TESTS = [
    "Once upon a time, there was a little girl named Lily.",
    "The cat sat on the mat.",
    "  two leading spaces and  a double space",
    "她喜欢在公园里玩。",
    "Zebra! Émile's naïve café 😀",
    "Lily\nTom\ttabs",
    "ball",
    "",
]


def derived_merges(sp):
    """LlamaConverter's merges: every (l, r) with l + r a piece, by the piece's score."""
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    scores = {sp.id_to_piece(i): sp.get_score(i) for i in range(sp.get_piece_size())}
    merges = []
    for piece, score in scores.items():
        local = [(piece[:k], piece[k:], score) for k in range(1, len(piece))
                 if piece[:k] in vocab and piece[k:] in vocab]
        merges.extend(sorted(local, key=lambda m: (vocab[m[0]], vocab[m[1]])))
    merges.sort(key=lambda m: m[2], reverse=True)
    return [[left, right] for left, right, _ in merges]


def tokenizer_json(sp, metaspace):
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    added = [{"id": i, "content": sp.id_to_piece(i), "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i in (0, 1, 2)]
    post = {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}}
    tj = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
          "normalizer": {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                                            {"type": "Replace", "pattern": {"String": " "},
                                                             "content": "▁"}]},
          "pre_tokenizer": None, "post_processor": post,
          "decoder": {"type": "Sequence", "decoders": [
              {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"},
              {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
          "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                    "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
                    "ignore_merges": False, "vocab": vocab, "merges": derived_merges(sp)}}
    if metaspace:
        tj["normalizer"] = None
        tj["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
    return tj


def write_expected(directory, sp, texts):
    """expected.json: SentencePiece's ids (BOS first), pieces and decoded text per string."""
    cases = [{"text": t, "ids": [sp.bos_id()] + sp.encode(t), "pieces": [sp.id_to_piece(i) for i in sp.encode(t)],
              "decoded": sp.decode(sp.encode(t))} for t in texts]
    with open(os.path.join(directory, "expected.json"), "w", encoding="utf-8") as f:
        json.dump({"generator": "tests/gen_sentencepiece_fixtures.py",
                   "reference": f"python3-sentencepiece {spm.__version__}", "cases": cases},
                  f, ensure_ascii=False, indent=1)
        f.write("\n")
    return cases


def main():
    os.makedirs(OUT, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS.splitlines()), model_writer=model, model_type="bpe", vocab_size=400,
        byte_fallback=True, normalization_rule_name="identity", add_dummy_prefix=True,
        remove_extra_whitespaces=False, split_digits=True, character_coverage=1.0, num_threads=1,
        allow_whitespace_only_pieces=True, minloglevel=2)
    with open(os.path.join(OUT, "tokenizer.model"), "wb") as f:
        f.write(model.getvalue())
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    for name, metaspace in [("tokenizer.json", False), ("tokenizer_metaspace.json", True)]:
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            json.dump(tokenizer_json(sp, metaspace), f, ensure_ascii=False, indent=1)
            f.write("\n")
    cases = write_expected(OUT, sp, TESTS)
    for c in cases:
        print(c["text"][:30], c["pieces"])
    unigram_dir = os.path.join(HERE, "fixtures", "tokenizers", "spm_unigram")
    os.makedirs(unigram_dir, exist_ok=True)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS.splitlines()), model_writer=model, model_type="unigram", vocab_size=100,
        character_coverage=1.0, num_threads=1, minloglevel=2)
    with open(os.path.join(unigram_dir, "tokenizer.model"), "wb") as f:
        f.write(model.getvalue())
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    cases = write_expected(unigram_dir, sp, TESTS + ["Ｆｕｌｌ ｗｉｄｔｈ ﬁne ①", "many     spaces   here"])
    print("unigram:", cases[-2]["pieces"], cases[-1]["pieces"])


if __name__ == "__main__":
    main()
