#pragma once
// Token ids read from other people's files (vocab.json, tokenizer.json): checked before
// anything is sized by them, so an id of 300 000 000 or 2³¹ − 1 in a 2 KB file is a
// sentence, not a 9 GB allocation or an int overflow.
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace hs {

// 4 194 304: sixteen times the largest vocabularies in use (Gemma's 256 000).
constexpr long long kMaxTokenId = 1LL << 22;

// The id `value` as an int in [0, kMaxTokenId); otherwise hs::Error "WHERE: …" naming it.
inline int token_id_from_json(const nlohmann::json& value, const std::string& where) {
    if (!value.is_number_integer()) throw Error(where + " is not an integer");
    if (!value.is_number_unsigned() && value.get<long long>() < 0)
        throw Error(where + " is negative (" + value.dump() + ")");
    if (value.get<unsigned long long>() >= static_cast<unsigned long long>(kMaxTokenId))
        throw Error(where + " is " + value.dump() + ", beyond the " + std::to_string(kMaxTokenId) +
                    " ids a vocabulary may have");
    return static_cast<int>(value.get<long long>());
}

}  // namespace hs
