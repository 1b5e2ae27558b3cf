#pragma once
// GPT-2's reversible byte ↔ unicode map, shared by every byte-level BPE (GPT-2
// vocab.json + merges.txt, tokenizer.json ByteLevel for GPT-2 / Qwen2 / Llama-3).
//
// BPE vocabularies store tokens as strings of printable characters, one per byte:
// bytes that are already printable (! … ~, ¡ … ¬, ® … ÿ) stand for themselves, the other
// 68 bytes map in order to U+0100, U+0101, … (so space 0x20 -> U+0120 'Ġ', newline
// 0x0A -> U+010A 'Ċ').
#include <string>

namespace hs::byte_level {

// The code point standing for byte b.
char32_t byte_to_symbol(unsigned char b);
// The byte a symbol stands for, or -1 when the code point is not one of the 256 symbols.
int symbol_to_byte(char32_t symbol);

// Raw bytes -> UTF-8 string of their symbols ("hi there" -> "hiĠthere").
std::string bytes_to_symbols(const std::string& bytes);
// UTF-8 string of symbols -> raw bytes. Returns false (and leaves `bytes` partial) when a
// code point is not a byte symbol or the string is not valid UTF-8.
bool symbols_to_bytes(const std::string& symbols, std::string& bytes);

}  // namespace hs::byte_level
