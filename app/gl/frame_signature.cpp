#include "app/gl/frame_signature.h"

namespace hs {

std::uint64_t frame_signature(const ImDrawData& draw, std::uint64_t extra) {
#if IMGUI_VERSION_NUM >= 19200
    // 1.92 builds glyphs on demand: a frame that adds some has textures to create or update,
    // and its commands' texture ids are only known once the backend has uploaded them.
    if (draw.Textures)
        for (const ImTextureData* tex : *draw.Textures)
            if (tex->Status != ImTextureStatus_OK) return 0;
#endif
    FrameHasher h;
    h.add(extra);
    h.add(draw.DisplayPos), h.add(draw.DisplaySize), h.add(draw.FramebufferScale);
    h.add(draw.CmdListsCount);
    for (int i = 0; i < draw.CmdListsCount; ++i) {
        const ImDrawList& list = *draw.CmdLists[i];
        h.add(list.VtxBuffer.Size), h.add(list.IdxBuffer.Size), h.add(list.CmdBuffer.Size);
        h.bytes(list.VtxBuffer.Data, static_cast<std::size_t>(list.VtxBuffer.Size) * sizeof(ImDrawVert));
        h.bytes(list.IdxBuffer.Data, static_cast<std::size_t>(list.IdxBuffer.Size) * sizeof(ImDrawIdx));
        for (const ImDrawCmd& cmd : list.CmdBuffer) {
            h.add(cmd.ClipRect), h.add(cmd.VtxOffset), h.add(cmd.IdxOffset), h.add(cmd.ElemCount);
            h.add(cmd.UserCallback);  // what a callback draws is in `extra`
            if (!cmd.UserCallback) h.add(cmd.GetTexID());
        }
    }
    const std::uint64_t v = h.value();
    return v == 0 ? 1 : v;
}

}  // namespace hs
