#include "core/tokenize/sentencepiece_model.h"

#include <sentencepiece_processor.h>

#include "core/error.h"
#include "core/io/atomic_file.h"

namespace hs {

namespace {

constexpr const char* kSpaceMark = "\xE2\x96\x81";  // "▁"

std::string spaces_shown(std::string piece) {
    for (std::size_t at = piece.find(kSpaceMark); at != std::string::npos; at = piece.find(kSpaceMark, at + 1))
        piece.replace(at, 3, " ");
    return piece;
}

}  // namespace

struct SentencePieceModel::Library {
    sentencepiece::SentencePieceProcessor processor;
};

SentencePieceModel::SentencePieceModel(const std::string& path) : lib_(std::make_unique<Library>()), path_(path) {
    const std::string bytes = read_file(path);
    const auto status = lib_->processor.LoadFromSerializedProto(bytes);
    if (!status.ok())
        throw Error("SentencePiece model '" + path + "' cannot be read: " + status.ToString());
    if (lib_->processor.GetPieceSize() < 1) throw Error("SentencePiece model '" + path + "' has no pieces");
}

SentencePieceModel::~SentencePieceModel() = default;

Tokens SentencePieceModel::encode(const std::string& text, bool add_special) const {
    Tokens out;
    if (add_special && bos_id() >= 0) out.ids.push_back(bos_id());
    std::vector<int> ids;
    const auto status = lib_->processor.Encode(text, &ids);
    if (!status.ok()) throw Error("SentencePiece model '" + path_ + "' cannot encode the text: " + status.ToString());
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
    const auto status = lib_->processor.Decode(ids, &text);
    if (!status.ok()) throw Error("SentencePiece model '" + path_ + "' cannot decode: " + status.ToString());
    return text;
}

std::string SentencePieceModel::display(int id) const {
    if (id < 0 || id >= vocab_size())
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocab_size()) +
                    " tokens");
    const std::string& piece = lib_->processor.IdToPiece(id);
    if (!lib_->processor.IsByte(id)) return lib_->processor.IsControl(id) ? piece : spaces_shown(piece);
    const int byte = static_cast<int>(std::stoul(piece.substr(3, 2), nullptr, 16));  // "<0xNN>"
    if (byte == '\n') return "\\n";
    if (byte == '\t') return "\\t";
    if (byte >= 0x20 && byte < 0x7F) return std::string(1, static_cast<char>(byte));
    return piece;
}

int SentencePieceModel::vocab_size() const { return lib_->processor.GetPieceSize(); }
int SentencePieceModel::bos_id() const { return lib_->processor.bos_id(); }
int SentencePieceModel::eos_id() const { return lib_->processor.eos_id(); }
int SentencePieceModel::unk_id() const { return lib_->processor.unk_id(); }

}  // namespace hs
