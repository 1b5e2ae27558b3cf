#pragma once
// "Would this frame look like the one on screen?" The frame loop skips drawing and
// swapping a frame whose signature equals the last drawn one: an idle window costs no
// rasterising (on software GL a full frame is 8–15 ms of both cores). The signature
// hashes the frame's ImDrawData through its public fields (vertices, indices, commands'
// clip rectangles, textures and callbacks) plus the heatmap renderer's own draw records,
// so any pixel that could change changes the hash. A new font atlas (ImGui ≤ 1.91) or a
// pending texture upload (1.92's dynamic fonts) counts as a change.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <imgui.h>

namespace hs {

// 64-bit FNV-1a over the bytes of the values added.
class FrameHasher {
public:
    void bytes(const void* data, std::size_t n) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ull;
    }
    template <typename T>
    void add(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes(&v, sizeof v);
    }
    std::uint64_t value() const { return h_; }

private:
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};

// The signature of what `draw` would put on screen; `extra` mixes in what callbacks draw
// (HeatmapRenderer::frame_signature). Returns 0 ("always draw") while a texture waits
// to be uploaded.
std::uint64_t frame_signature(const ImDrawData& draw, std::uint64_t extra);

}  // namespace hs
