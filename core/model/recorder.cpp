#include "core/model/recorder.h"

#include <utility>

namespace hs {

std::string TapPoint::full_name() const {
    std::string out = stack;
    if (layer >= 0) out += "layers." + std::to_string(layer) + ".";
    return out + name;
}

std::string_view TapPoint::block() const {
    const std::string_view n = name;
    return n.substr(0, n.find_first_of("._"));
}

std::string_view TapPoint::part() const {
    const std::string_view n = name;
    const std::size_t dot = n.find('.');
    return dot == std::string_view::npos ? std::string_view() : n.substr(dot + 1);
}

bool is_on_demand(const TapPoint& point) {
    const std::string_view block = point.block(), part = point.part();
    if (block != "attn" && block != "cross") return false;
    return part == "weights" || part == "scores" || part == "qkv" || part == "heads" || part == "memory";
}

bool Recorder::wants(const TapPoint&) const { return false; }
void Recorder::record(const TapPoint&, const Eigen::Ref<const Matrix>&) {}
void Recorder::record_maps(const TapPoint&, const std::vector<Matrix>&) {}
void Recorder::take_maps(const TapPoint& point, std::vector<Matrix>& maps) { record_maps(point, maps); }

Recorders::Recorders(std::vector<Recorder*> list) : list_(std::move(list)) {
    std::erase(list_, nullptr);
}

bool Recorders::wants(const TapPoint& point) const {
    for (const Recorder* r : list_)
        if (r->wants(point)) return true;
    return false;
}

void Recorders::record(const TapPoint& point, const Eigen::Ref<const Matrix>& value) {
    for (Recorder* r : list_) r->record(point, value);
}

void Recorders::record_maps(const TapPoint& point, const std::vector<Matrix>& maps) {
    for (Recorder* r : list_) r->record_maps(point, maps);
}

void Recorders::take_maps(const TapPoint& point, std::vector<Matrix>& maps) {
    // The owner: the last recorder that wants the maps; the others see them before it.
    Recorder* owner = nullptr;
    for (auto r = list_.rbegin(); r != list_.rend() && !owner; ++r)
        if ((*r)->wants(point)) owner = *r;
    for (Recorder* r : list_)
        if (r != owner) r->record_maps(point, maps);
    if (owner) owner->take_maps(point, maps);
}

MapsKeeper::MapsKeeper(bool scores, std::string block) : keep_scores_(scores), block_(std::move(block)) {}

bool MapsKeeper::wants(const TapPoint& point) const {
    return point.block() == block_ && (point.part() == "weights" || (keep_scores_ && point.part() == "scores"));
}

void MapsKeeper::record_maps(const TapPoint& point, const std::vector<Matrix>& maps) {
    if (wants(point)) (point.part() == "weights" ? weights : scores) = maps;
}

void MapsKeeper::take_maps(const TapPoint& point, std::vector<Matrix>& maps) {
    if (wants(point)) (point.part() == "weights" ? weights : scores) = std::move(maps);
}

}  // namespace hs
