#include "core/formats/hf_tensors.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/json_file.h"

namespace hs {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string shape_string(const TensorShape& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string lower_dtype(DType d) {
    std::string s = to_string(d);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

HfTensors::HfTensors(const std::string& dir, std::string family) : dir_(dir), family_(std::move(family)) {
    const fs::path single = fs::path(dir) / "model.safetensors";
    const fs::path index = fs::path(dir) / "model.safetensors.index.json";
    std::error_code ec;
    if (fs::is_regular_file(single, ec)) {
        auto file = SafetensorsFile::open(single.string());
        for (const auto& [name, info] : file->tensors()) where_[name] = file.get();
        files_.push_back(std::move(file));
        source_ = "model.safetensors";
    } else if (fs::is_regular_file(index, ec)) {
        open_index(index.string());
        source_ = "model.safetensors.index.json";
    } else {
        std::string hint;
        if (fs::exists(fs::path(dir) / "pytorch_model.bin", ec))
            hint = " (pytorch_model.bin is not read: convert it to safetensors)";
        throw Error(dir + " has neither model.safetensors nor model.safetensors.index.json" + hint);
    }
}

std::string HfTensors::pick(std::initializer_list<std::string> names) const {
    for (const std::string& n : names)
        if (has(n)) return n;
    (void)file_of(*names.begin());  // throws naming it
    return *names.begin();
}

const SafetensorsFile& HfTensors::file_of(const std::string& name) const {
    const auto it = where_.find(name);
    if (it == where_.end())
        throw Error(dir_ + ": tensor '" + name + "' is missing from " + source_ + " (expected in a " + family_ +
                    " checkpoint)");
    return *it->second;
}

const TensorInfo& HfTensors::expect(const std::string& name, const TensorShape& expected) const {
    const TensorInfo& info = file_of(name).info(name);
    if (!dtype_is_readable(info.dtype))
        throw Error(dir_ + ": tensor '" + name + "' has unsupported dtype " + to_string(info.dtype) +
                    " (weights must be F32, F16 or BF16)");
    if (info.shape != expected)
        throw Error(dir_ + ": tensor '" + name + "' has shape " + shape_string(info.shape) + ", expected " +
                    shape_string(expected) + " from config.json");
    return info;
}

// {"metadata": {...}, "weight_map": {"tensor": "model-00001-of-00002.safetensors"}}: each
// shard opened once; each listed tensor must be in the shard named for it.
void HfTensors::open_index(const std::string& path) {
    const json j = read_json_file(path);
    if (!j.is_object() || !j.contains("weight_map") || !j.at("weight_map").is_object())
        throw Error(path + " has no \"weight_map\" object mapping tensor names to shard files");
    std::map<std::string, const SafetensorsFile*> shards;
    for (const auto& [name, value] : j.at("weight_map").items()) {
        if (!value.is_string())
            throw Error(path + ": weight_map entry for '" + name + "' is not a file name (got " + value.dump() + ")");
        const std::string shard = value.get<std::string>();
        if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
            shard == "." || shard == "..")
            throw Error(path + ": weight_map entry for '" + name + "' names \"" + shard +
                        "\", which is not a file name inside the directory");
        auto it = shards.find(shard);
        if (it == shards.end()) {
            const fs::path shard_path = fs::path(dir_) / shard;
            std::error_code ec;
            if (!fs::is_regular_file(shard_path, ec))
                throw Error(path + " lists shard " + shard + " (for tensor '" + name + "'), but " + shard_path.string() +
                            " does not exist");
            files_.push_back(SafetensorsFile::open(shard_path.string()));
            it = shards.emplace(shard, files_.back().get()).first;
        }
        if (!it->second->has(name))
            throw Error(path + " puts tensor '" + name + "' in " + shard + ", but that shard has no such tensor");
        where_[name] = it->second;
    }
}

const TensorInfo& HfTensorReader::expect(const std::string& name, const TensorShape& expected) {
    const TensorInfo& info = tensors_.expect(name, expected);
    dtypes_.insert(lower_dtype(info.dtype));
    return info;
}

Matrix HfTensorReader::matrix(const std::string& name, const TensorShape& expected) {
    const TensorInfo& info = expect(name, expected);
    const std::int64_t rows = info.shape.size() == 2 ? info.shape[0] : 1;
    Matrix m(rows, info.shape.back());  // (1, n) for a 1-D tensor
    tensors_.file_of(name).read_rows(info, 0, rows, m.data());  // checked finite as converted
    return m;
}

Vector HfTensorReader::vector(const std::string& name, std::int64_t n) {
    const Matrix m = matrix(name, TensorShape{n});
    return Eigen::Map<const Vector>(m.data(), n);
}

void HfTensorReader::matrix_into(const std::string& name, std::int64_t rows, std::int64_t cols, Matrix& out) {
    if (!stored_) {
        out = matrix(name, rows, cols);
        return;
    }
    const TensorInfo& t = expect(name, {rows, cols});
    shape_into(out, rows, cols);
    rows_into(t, 0, rows, out, 0);
}

void HfTensorReader::shape_into(Matrix& out, std::int64_t rows, std::int64_t cols) {
    if (!stored_) {
        if (out.rows() != rows || out.cols() != cols) out.resize(rows, cols);
        return;
    }
    stored_->declare(out, static_cast<int>(rows), static_cast<int>(cols));
    out.resize(0, 0);
}

void HfTensorReader::rows_into(const TensorInfo& t, std::int64_t first, std::int64_t count, Matrix& out,
                               std::int64_t at) {
    const StoredMatrix* declared = stored_ ? stored_->declared(out) : nullptr;
    const std::int64_t out_rows = declared ? declared->rows : out.rows(), out_cols = declared ? declared->cols : out.cols();
    if ((stored_ && !declared) || t.shape.size() != 2 || out_cols != t.shape[1] || at < 0 || at + count > out_rows ||
        first < 0 || count < 0 || first + count > t.shape[0])
        throw Error(tensors_.dir() + ": rows of tensor '" + t.name + "' do not fit where they are read to");
    const SafetensorsFile& file = tensors_.file_of(t.name);
    if (stored_) {
        stored_->add_rows(out, file.stored_rows(t, first, count, static_cast<int>(at)));
        if (check_stored_) file.check_rows(t, first, count);
        return;
    }
    if (cached_name_ != t.name) {  // [q; k; v] of GPT-NeoX reads one tensor in many pieces
        cached_ = matrix(t.name, t.shape);
        cached_name_ = t.name;
    }
    out.middleRows(at, count) = cached_.middleRows(first, count);
}

int hf_layer_of(const std::string& name) {
    // "….layers.N.…", "….layer.N.…" (BERT) or "…h.N.…" (GPT-2, GPT-Neo)
    for (const std::string key : {"layers.", "layer.", "h."}) {
        for (std::size_t at = name.find(key); at != std::string::npos; at = name.find(key, at + 1)) {
            if (at > 0 && name[at - 1] != '.') continue;
            std::size_t i = at + key.size();
            int il = 0, digits = 0;
            for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 7; ++i, ++digits)
                il = il * 10 + (name[i] - '0');
            if (digits > 0 && i < name.size() && name[i] == '.') return il;
        }
    }
    return -1;
}

bool hf_embed_or_head(const std::string& name) {
    for (const char* end : {"wte.weight", "word_embeddings.weight", "embed_in.weight", "embed_tokens.weight",
                            "lm_head.weight", "embed_out.weight"})
        if (name.ends_with(end) && hf_layer_of(name) < 0) return true;
    return false;
}

WeightFootprint hf_footprint(const HfTensors& tensors, const ModelConfig& c) {
    FootprintTally tally(c.layers);
    for (const auto& [name, file] : tensors.tensors()) {
        const TensorInfo& t = file->info(name);
        // not weights: GPT-2's and GPT-Neo's mask buffers (4-D, 0-D), position ids (I64)
        if (t.shape.empty() || t.shape.size() > 2 || !dtype_is_readable(t.dtype)) continue;
        if (name.ends_with(".inv_freq")) continue;  // rotary frequencies some exports keep (Pythia)
        if (c.lm_head != LmHead::Separate && (name == "lm_head.weight" || name == "embed_out.weight")) continue;
        tally.add(hf_layer_of(name), static_cast<double>(t.numel()), static_cast<double>(t.end - t.begin),
                  hf_embed_or_head(name));
    }
    return tally.footprint();
}

void HfTensorReader::leave_stored(StoredLayer* stored, bool check_stored) {
    stored_ = stored;
    check_stored_ = check_stored;
    cached_name_.clear();
    cached_.resize(0, 0);
}

std::string HfTensorReader::dtype() const {
    std::string s;
    for (const std::string& d : dtypes_) s += (s.empty() ? "" : "+") + d;
    return s.empty() ? "f32" : s;
}

}  // namespace hs
