// The frame loop's "nothing changed" test (app/gl/frame_signature.*): two frames with the
// same draw lists sign the same; any change a pixel could show (a vertex's colour or
// place, an index, a clip rectangle, a texture, the heatmaps' own records, the display
// size) signs otherwise.
#include <type_traits>

#include <gtest/gtest.h>

#include "app/gl/frame_signature.h"

namespace hs {
namespace {

// One list: a quad (4 vertices, 6 indices) in one command.
struct OneQuadFrame {
    ImDrawList list{nullptr};
    ImDrawList* lists[1] = {&list};
    ImDrawData data;

    OneQuadFrame() {
        for (int i = 0; i < 4; ++i) {
            ImDrawVert v{};
            v.pos = ImVec2(float(i % 2) * 10.0f, float(i / 2) * 10.0f);
            v.col = 0xff336699;
            list.VtxBuffer.push_back(v);
        }
        for (ImDrawIdx i : {0, 1, 2, 0, 2, 3}) list.IdxBuffer.push_back(i);
        ImDrawCmd cmd{};
        cmd.ClipRect = ImVec4(0, 0, 100, 100);
        cmd.ElemCount = 6;
        list.CmdBuffer.push_back(cmd);
        data.Valid = true;
        // CmdLists is an array pointer up to 1.89.7 and an ImVector since.
        [](auto& d, ImDrawList** array) {
            if constexpr (std::is_pointer_v<decltype(d.CmdLists)>) d.CmdLists = array;
            else d.CmdLists.push_back(array[0]);
        }(data, lists);
        data.CmdListsCount = 1;
        data.DisplaySize = ImVec2(640, 480);
        data.FramebufferScale = ImVec2(1, 1);
    }
    std::uint64_t sign(std::uint64_t extra = 7) const { return frame_signature(data, extra); }
};

TEST(FrameSignature, SameDrawListsSignTheSame) {
    OneQuadFrame a, b;
    EXPECT_NE(a.sign(), 0u);
    EXPECT_EQ(a.sign(), b.sign());
}

TEST(FrameSignature, AnyVisibleChangeSignsOtherwise) {
    const std::uint64_t base = OneQuadFrame().sign();
    {
        OneQuadFrame f;
        f.list.VtxBuffer[2].col = 0xff336698;  // one colour bit of one vertex
        EXPECT_NE(f.sign(), base);
    }
    {
        OneQuadFrame f;
        f.list.VtxBuffer[1].pos.x += 1.0f;
        EXPECT_NE(f.sign(), base);
    }
    {
        OneQuadFrame f;
        f.list.IdxBuffer[5] = 1;
        EXPECT_NE(f.sign(), base);
    }
    {
        OneQuadFrame f;
        f.list.CmdBuffer[0].ClipRect.z = 99.0f;
        EXPECT_NE(f.sign(), base);
    }
    {
        OneQuadFrame f;
        f.data.DisplaySize = ImVec2(641, 480);
        EXPECT_NE(f.sign(), base);
    }
    EXPECT_NE(OneQuadFrame().sign(8), base);  // a heatmap's record changed
}

}  // namespace
}  // namespace hs
