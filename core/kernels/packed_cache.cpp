#include "core/kernels/packed_cache.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "core/kernels/parallel.h"

namespace hs {

namespace {

// Every registered weight by the address of its first float. One address can hold several
// weights (a matrix and a block of its first rows) and one weight can be registered by
// several caches (each removes only its own entries), hence a multimap.
struct Registered {
    int rows, cols;
    const gemm::PackedWeights* panels;
    const PackedPanels* owner;
};

struct Registry {
    std::shared_mutex mutex;
    std::unordered_multimap<const float*, Registered> by_data;
};

Registry& registry() {
    static Registry r;
    return r;
}

}  // namespace

PackedPanels::PackedPanels(std::shared_ptr<const void> keep_alive, const std::vector<WeightRows>& weights)
    : keep_alive_(std::move(keep_alive)) {
    for (const WeightRows& w : weights)
        if (w.rows > 0 && w.cols > 0) entries_.push_back({w, nullptr});
    // One job per weight; each writes only its own entry.
    parallel_for(static_cast<int>(entries_.size()), [&](int i) {
        Entry& e = entries_[static_cast<std::size_t>(i)];
        const WeightRows& w = e.weight;
        e.panels = std::make_unique<const gemm::PackedWeights>(gemm::pack(w.data, w.rows, w.cols, w.cols));
    });
    Registry& r = registry();
    std::unique_lock lock(r.mutex);
    try {
        for (const Entry& e : entries_)
            r.by_data.emplace(e.weight.data, Registered{e.weight.rows, e.weight.cols, e.panels.get(), this});
    } catch (...) {  // out of memory part-way: no entry may outlive this half-built object
        for (auto it = r.by_data.begin(); it != r.by_data.end();)
            it = it->second.owner == this ? r.by_data.erase(it) : std::next(it);
        throw;
    }
}

PackedPanels::~PackedPanels() {
    Registry& r = registry();
    std::unique_lock lock(r.mutex);
    for (const Entry& e : entries_) {
        auto [it, end] = r.by_data.equal_range(e.weight.data);
        while (it != end) it = it->second.owner == this ? r.by_data.erase(it) : std::next(it);
    }
}

std::size_t PackedPanels::bytes() const {
    std::size_t total = 0;
    for (const Entry& e : entries_) total += static_cast<std::size_t>(e.panels->data.size()) * sizeof(float);
    return total;
}

const gemm::PackedWeights* packed_panels(const Eigen::Ref<const Matrix>& w) {
    if (w.size() == 0 || w.outerStride() != w.cols()) return nullptr;  // not contiguous rows
    Registry& r = registry();
    std::shared_lock lock(r.mutex);
    auto [it, end] = r.by_data.equal_range(w.data());
    for (; it != end; ++it)
        if (it->second.rows == w.rows() && it->second.cols == w.cols()) return it->second.panels;
    return nullptr;
}

}  // namespace hs
