// Splitting ImGui commands into runs for the cheaper UI programs (app/gl/ui_runs.*): which
// triangles may skip the texture fetch or blending, and how small runs merge.
#include <cmath>

#include <gtest/gtest.h>

#include "app/gl/ui_runs.h"

namespace hs {
namespace {

const ImVec2 kWhite(0.25f, 0.5f);   // stands for ImFontAtlas::TexUvWhitePixel
const ImVec2 kGlyph(0.75f, 0.125f); // any other atlas coordinate
constexpr ImU32 kOpaqueRed = IM_COL32(255, 0, 0, 255);
constexpr ImU32 kOpaqueBlue = IM_COL32(0, 0, 255, 255);
constexpr ImU32 kHalfRed = IM_COL32(255, 0, 0, 128);

ImDrawVert vert(float x, float y, ImVec2 uv, ImU32 col) {
    ImDrawVert v;
    v.pos = ImVec2(x, y);
    v.uv = uv;
    v.col = col;
    return v;
}

// Appends the two triangles (0,1,2), (0,2,3) of an axis-aligned w×h rectangle at (x, y),
// as ImDrawList::PrimRect does: area w·h.
void rect(std::vector<ImDrawVert>& vtx, std::vector<ImDrawIdx>& idx, float x, float y, float w, float h, ImVec2 uv,
          ImU32 col) {
    const auto base = static_cast<ImDrawIdx>(vtx.size());
    vtx.push_back(vert(x, y, uv, col));
    vtx.push_back(vert(x + w, y, uv, col));
    vtx.push_back(vert(x + w, y + h, uv, col));
    vtx.push_back(vert(x, y + h, uv, col));
    for (int k : {0, 1, 2, 0, 2, 3}) idx.push_back(static_cast<ImDrawIdx>(base + k));
}

std::vector<UiRun> split(const std::vector<ImDrawVert>& vtx, const std::vector<ImDrawIdx>& idx, double min_area,
                         bool opaque = true) {
    RunOptions o;
    o.white_uv = kWhite;
    o.min_area = min_area;
    o.opaque = opaque;
    std::vector<UiRun> out{UiRun{99, 99, RunKind::Solid}};  // replaced, not appended to
    split_runs(vtx.data(), idx.data(), static_cast<unsigned>(idx.size()), o, out);
    return out;
}

TEST(UiRuns, TriangleKindNeedsTheWhiteTexelAtEveryVertex) {
    RunOptions o;
    o.white_uv = kWhite;
    const ImDrawVert w = vert(0, 0, kWhite, kOpaqueRed), g = vert(0, 0, kGlyph, kOpaqueRed);
    EXPECT_EQ(triangle_kind(w, w, w, o), RunKind::Opaque);
    EXPECT_EQ(triangle_kind(w, w, g, o), RunKind::Textured);
    EXPECT_EQ(triangle_kind(g, w, w, o), RunKind::Textured);
    // uv off the white texel by one float step is not white.
    const ImDrawVert near = vert(0, 0, ImVec2(std::nextafter(kWhite.x, 1.0f), kWhite.y), kOpaqueRed);
    EXPECT_EQ(triangle_kind(w, near, w, o), RunKind::Textured);
}

TEST(UiRuns, OpaqueNeedsAlpha255AndOneColour) {
    RunOptions o;
    o.white_uv = kWhite;
    const ImDrawVert red = vert(0, 0, kWhite, kOpaqueRed), blue = vert(0, 0, kWhite, kOpaqueBlue),
                     half = vert(0, 0, kWhite, kHalfRed);
    EXPECT_EQ(triangle_kind(red, red, red, o), RunKind::Opaque);
    EXPECT_EQ(triangle_kind(red, red, half, o), RunKind::Solid);   // AA fringe: alpha falls off
    EXPECT_EQ(triangle_kind(red, blue, red, o), RunKind::Solid);   // gradient: flat would be wrong
    o.opaque = false;
    EXPECT_EQ(triangle_kind(red, red, red, o), RunKind::Solid);
}

TEST(UiRuns, ConsecutiveTrianglesOfOneKindFormOneRun) {
    std::vector<ImDrawVert> vtx;
    std::vector<ImDrawIdx> idx;
    rect(vtx, idx, 0, 0, 100, 100, kWhite, kOpaqueRed);   // indices 0..5, opaque, 10000 px
    rect(vtx, idx, 0, 0, 8, 13, kGlyph, kOpaqueRed);      // 6..11, a glyph
    rect(vtx, idx, 10, 0, 8, 13, kGlyph, kOpaqueRed);     // 12..17, a glyph
    rect(vtx, idx, 0, 20, 200, 30, kWhite, kHalfRed);     // 18..23, translucent, 6000 px
    const std::vector<UiRun> runs = split(vtx, idx, 0.0);
    const std::vector<UiRun> want{{0, 6, RunKind::Opaque}, {6, 12, RunKind::Textured}, {18, 6, RunKind::Solid}};
    EXPECT_EQ(runs, want);
}

TEST(UiRuns, SmallCheapRunJoinsTheCheapestNeighbourThatCanDrawIt) {
    std::vector<ImDrawVert> vtx;
    std::vector<ImDrawIdx> idx;
    rect(vtx, idx, 0, 0, 8, 13, kGlyph, kOpaqueRed);       // 0..5 textured
    rect(vtx, idx, 0, 0, 10, 10, kWhite, kOpaqueRed);      // 6..11 opaque, 100 px: small
    rect(vtx, idx, 0, 0, 100, 50, kWhite, kHalfRed);       // 12..17 solid, 5000 px
    rect(vtx, idx, 0, 0, 10, 5, kWhite, kHalfRed);         // 18..23 solid but merges with the above
    rect(vtx, idx, 0, 0, 8, 13, kGlyph, kOpaqueRed);       // 24..29 textured
    // min area 1000: the 100 px opaque run may become Textured (left) or Solid (right):
    // Solid is cheaper, so it joins the solid run.
    const std::vector<UiRun> runs = split(vtx, idx, 1000.0);
    const std::vector<UiRun> want{{0, 6, RunKind::Textured}, {6, 18, RunKind::Solid}, {24, 6, RunKind::Textured}};
    EXPECT_EQ(runs, want);
    // min area 10000: the solid run (5050 px) is small too and becomes Textured, after the
    // opaque run had already joined it as Solid: the result is textured, then that former
    // opaque run (indices 6-11) as Solid, then textured.
    const std::vector<UiRun> runs2 = split(vtx, idx, 10000.0);
    const std::vector<UiRun> want2{{0, 6, RunKind::Textured}, {6, 6, RunKind::Solid}, {12, 18, RunKind::Textured}};
    EXPECT_EQ(runs2, want2);
}

TEST(UiRuns, SmallRunWithoutMoreGeneralNeighbourStays) {
    std::vector<ImDrawVert> vtx;
    std::vector<ImDrawIdx> idx;
    rect(vtx, idx, 0, 0, 2, 2, kWhite, kOpaqueRed);  // 4 px, alone in its command
    EXPECT_EQ(split(vtx, idx, 1e9), (std::vector<UiRun>{{0, 6, RunKind::Opaque}}));
    // A small opaque run between two large translucent ones becomes Solid and merges.
    std::vector<ImDrawVert> v2;
    std::vector<ImDrawIdx> i2;
    rect(v2, i2, 0, 0, 100, 100, kWhite, kHalfRed);
    rect(v2, i2, 0, 0, 2, 2, kWhite, kOpaqueBlue);
    rect(v2, i2, 0, 0, 100, 100, kWhite, kHalfRed);
    EXPECT_EQ(split(v2, i2, 100.0), (std::vector<UiRun>{{0, 18, RunKind::Solid}}));
}

TEST(UiRuns, AreaIsThatOfTheTrianglesNotOfTheirBoundingBox) {
    // One opaque triangle (0,0) (100,0) (0,100): area 5000 px (its box is 10000).
    std::vector<ImDrawVert> vtx{vert(0, 0, kWhite, kOpaqueRed), vert(100, 0, kWhite, kOpaqueRed),
                                vert(0, 100, kWhite, kOpaqueRed), vert(0, 0, kGlyph, kOpaqueRed),
                                vert(5, 0, kGlyph, kOpaqueRed), vert(0, 5, kGlyph, kOpaqueRed)};
    std::vector<ImDrawIdx> idx{3, 4, 5, 0, 1, 2};
    EXPECT_EQ(split(vtx, idx, 5000.0), (std::vector<UiRun>{{0, 3, RunKind::Textured}, {3, 3, RunKind::Opaque}}));
    EXPECT_EQ(split(vtx, idx, 5000.5), (std::vector<UiRun>{{0, 6, RunKind::Textured}}));
}

TEST(UiRuns, EmptyCommandHasNoRuns) {
    std::vector<ImDrawVert> vtx;
    std::vector<ImDrawIdx> idx;
    EXPECT_TRUE(split(vtx, idx, 0.0).empty());
}

}  // namespace
}  // namespace hs
