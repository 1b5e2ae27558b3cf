#include "core/tokenize/sentencepiece_model.h"

#include <span>

#include <sentencepiece_processor.h>

#include "core/error.h"
#include "core/io/atomic_file.h"
#include "core/tokenize/byte_fallback.h"

namespace hs {

namespace {

// The library reports most problems as a status, but some malformed models make it throw
// (a zero-length piece: Darts' "failed to insert key"): both become hs::Error naming the file.
template <typename Call>
void call_library(const std::string& path, const char* doing, Call call) {
    try {
        const auto status = call();
        if (!status.ok()) throw Error("SentencePiece model '" + path + "' " + doing + ": " + status.ToString());
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error("SentencePiece model '" + path + "' " + doing + ": " + e.what());
    }
}

// ids → text. SentencePiece 0.2.2 (Debian testing) deprecates Decode(const std::vector<int>&)
// for an absl::Span overload, which a std::span converts to; 0.1.x (Debian 12) has only the
// vector one.
template <typename Processor>
auto decode_ids(const Processor& processor, const std::vector<int>& ids, std::string* text) {
    if constexpr (requires { processor.Decode(std::span<const int>(ids), text); })
        return processor.Decode(std::span<const int>(ids), text);
    else
        return processor.Decode(ids, text);
}

}  // namespace

struct SentencePieceModel::Library {
    sentencepiece::SentencePieceProcessor processor;
};

SentencePieceModel::SentencePieceModel(const std::string& path) : lib_(std::make_unique<Library>()), path_(path) {
    const std::string bytes = read_file(path);
    call_library(path, "cannot be read", [&] { return lib_->processor.LoadFromSerializedProto(bytes); });
    if (lib_->processor.GetPieceSize() < 1) throw Error("SentencePiece model '" + path + "' has no pieces");
}

SentencePieceModel::~SentencePieceModel() = default;

Tokens SentencePieceModel::encode(const std::string& text, bool add_special) const {
    Tokens out;
    if (add_special && bos_id() >= 0) out.ids.push_back(bos_id());
    std::vector<int> ids;
    call_library(path_, "cannot encode the text", [&] { return lib_->processor.Encode(text, &ids); });
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
    for (int id : out.ids) out.text.push_back(display(id));
    return out;
}

std::string SentencePieceModel::decode(const std::vector<int>& ids) const {
    for (int id : ids)
        if (id < 0 || id >= vocab_size())
            throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                        std::to_string(vocab_size()) + " tokens");
    std::string text;
    call_library(path_, "cannot decode", [&] { return decode_ids(lib_->processor, ids, &text); });
    return text;
}

std::string SentencePieceModel::display(int id) const {
    if (id < 0 || id >= vocab_size())
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocab_size()) +
                    " tokens");
    const std::string& piece = lib_->processor.IdToPiece(id);
    if (lib_->processor.IsByte(id)) return byte_piece_label(piece);
    return lib_->processor.IsControl(id) ? piece : spaces_from_marks(piece);
}

int SentencePieceModel::vocab_size() const { return lib_->processor.GetPieceSize(); }
int SentencePieceModel::bos_id() const { return lib_->processor.bos_id(); }
int SentencePieceModel::eos_id() const { return lib_->processor.eos_id(); }
int SentencePieceModel::unk_id() const { return lib_->processor.unk_id(); }

}  // namespace hs
