#include "core/kernels/packed_cache.h"

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <utility>

namespace hs {

// A registered weight and, once packed, its panels. `products` counts the products that
// asked for it; the second fills `panels` while holding `fill_mutex` (so concurrent
// forwards sharing the model fill it once) and publishes them through `ready`.
struct PackedPanels::Entry {
    WeightRows weight;
    std::atomic<int> products{0};
    std::mutex fill_mutex;
    gemm::PackedWeights panels;                            // written under fill_mutex
    std::atomic<const gemm::PackedWeights*> ready{nullptr};  // &panels once they are complete
};

namespace {

// Every registered weight by the address of its first float. One address can hold several
// weights (a matrix and a block of its first rows) and one weight can be registered by
// several caches (each removes only its own entries), hence a multimap.
struct Registered {
    int rows, cols;
    PackedPanels::Entry* entry;
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

// The entry registered for exactly w's rows, or null. The entry lives as long as its
// PackedPanels, which outlives any product with its weights (the model holds both).
PackedPanels::Entry* find_entry(const Eigen::Ref<const Matrix>& w) {
    if (w.size() == 0 || w.outerStride() != w.cols()) return nullptr;  // not contiguous rows
    Registry& r = registry();
    std::shared_lock lock(r.mutex);
    auto [it, end] = r.by_data.equal_range(w.data());
    for (; it != end; ++it)
        if (it->second.rows == w.rows() && it->second.cols == w.cols()) return it->second.entry;
    return nullptr;
}

}  // namespace

PackedPanels::PackedPanels(std::shared_ptr<const void> keep_alive, const std::vector<WeightRows>& weights)
    : keep_alive_(std::move(keep_alive)) {
    for (const WeightRows& w : weights)
        if (w.rows > 0 && w.cols > 0) {
            entries_.push_back(std::make_unique<Entry>());
            entries_.back()->weight = w;
        }
    Registry& r = registry();
    std::unique_lock lock(r.mutex);
    try {
        for (const auto& e : entries_)
            r.by_data.emplace(e->weight.data, Registered{e->weight.rows, e->weight.cols, e.get(), this});
    } catch (...) {  // out of memory part-way: no entry may outlive this half-built object
        for (auto it = r.by_data.begin(); it != r.by_data.end();)
            it = it->second.owner == this ? r.by_data.erase(it) : std::next(it);
        throw;
    }
}

PackedPanels::~PackedPanels() {
    Registry& r = registry();
    std::unique_lock lock(r.mutex);
    for (const auto& e : entries_) {
        auto [it, end] = r.by_data.equal_range(e->weight.data);
        while (it != end) it = it->second.owner == this ? r.by_data.erase(it) : std::next(it);
    }
}

std::size_t PackedPanels::bytes() const {
    std::size_t total = 0;
    for (const auto& e : entries_)
        if (const gemm::PackedWeights* p = e->ready.load(std::memory_order_acquire))
            total += static_cast<std::size_t>(p->data.size()) * sizeof(float);
    return total;
}

const gemm::PackedWeights* packed_panels(const Eigen::Ref<const Matrix>& w) {
    const PackedPanels::Entry* e = find_entry(w);
    return e ? e->ready.load(std::memory_order_acquire) : nullptr;
}

WeightPanels::WeightPanels(WeightPanels&& other) noexcept
    : entry_(std::exchange(other.entry_, nullptr)),
      panels_(std::exchange(other.panels_, nullptr)),
      filling_(std::exchange(other.filling_, nullptr)),
      fill_lock_(std::move(other.fill_lock_)) {}

WeightPanels::~WeightPanels() = default;  // releases the fill lock, if any

void WeightPanels::publish() {
    if (!filling_) return;
    entry_->ready.store(filling_, std::memory_order_release);
    panels_ = filling_;
    filling_ = nullptr;
}

WeightPanels panels_for_product(const Eigen::Ref<const Matrix>& w) {
    WeightPanels out;
    out.entry_ = find_entry(w);
    PackedPanels::Entry* e = out.entry_;
    if (!e) return out;
    out.panels_ = e->ready.load(std::memory_order_acquire);
    if (out.panels_ || e->products.fetch_add(1, std::memory_order_relaxed) == 0) return out;
    std::unique_lock lock(e->fill_mutex, std::try_to_lock);
    if (!lock.owns_lock()) return out;  // another product is filling: this one packs on the fly
    if ((out.panels_ = e->ready.load(std::memory_order_acquire))) return out;  // filled meanwhile
    gemm::PackedWeights& p = e->panels;
    p.n = w.rows();
    p.k = w.cols();
    p.data.resize(static_cast<Eigen::Index>(p.panels()) * p.k * gemm::kPanel);  // every float written by the product
    out.filling_ = &p;
    out.fill_lock_ = std::move(lock);
    return out;
}

}  // namespace hs
