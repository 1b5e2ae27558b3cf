// Damage tracking of the UI frame (app/gl/damage.*): which pixels a frame must redraw,
// and the pixel arithmetic that keeps a partial redraw identical to a full one.
#include <algorithm>

#include <gtest/gtest.h>

#include "app/gl/damage.h"

namespace hs {
namespace {

ListSummary list(const std::string& name, std::vector<unsigned char> key, DamageRect bounds) {
    ListSummary l;
    l.name = name;
    l.key = std::move(key);
    l.bounds = bounds;
    return l;
}

using Rects = std::vector<DamageRect>;

// Runs one frame through the tracker (update() hands back the previous frame's lists).
Rects frame(DamageTracker& t, std::vector<ListSummary> lists, std::uint64_t epoch = 0, int w = 800, int h = 600) {
    return t.update(lists, w, h, epoch);
}

// A list of solid quads as ImGui draws text and frames: 4 vertices and the triangles
// (0 1 2) (0 2 3) per quad, one command with `clip`; bounds as FrameCache computes them.
struct Quad {
    float x0, y0, x1, y1;
    ImU32 col = 0xffffffff;
};
ListSummary quads(const std::string& name, const std::vector<Quad>& qs, ImVec4 clip = ImVec4(0, 0, 800, 600)) {
    ListSummary l;
    l.name = name;
    ImVec4 box(1e9f, 1e9f, -1e9f, -1e9f);
    for (const Quad& q : qs) {
        const auto base = static_cast<ImDrawIdx>(l.vertices.size());
        for (const ImVec2 p : {ImVec2(q.x0, q.y0), ImVec2(q.x1, q.y0), ImVec2(q.x1, q.y1), ImVec2(q.x0, q.y1)}) {
            ImDrawVert v{};
            v.pos = p;
            v.col = q.col;
            l.vertices.push_back(v);
        }
        for (const int i : {0, 1, 2, 0, 2, 3}) l.indices.push_back(static_cast<ImDrawIdx>(base + i));
        box = ImVec4(std::min(box.x, q.x0), std::min(box.y, q.y0), std::max(box.z, q.x1), std::max(box.w, q.y1));
    }
    DrawStep step;
    step.clip = clip;
    step.elem_count = static_cast<unsigned int>(l.indices.size());
    l.steps.push_back(step);
    const DamageRect touched = outer_pixels(box, ImVec2(1, 1));
    l.bounds = intersect(outer_pixels(clip, ImVec2(1, 1)),
                         DamageRect{touched.x0 - 1, touched.y0 - 1, touched.x1 + 1, touched.y1 + 1});
    return l;
}

// Four glyph-sized quads in a row, x = 10, 20, 30, 40.
std::vector<Quad> label() { return {{10, 100, 18, 110}, {20, 100, 28, 110}, {30, 100, 38, 110}, {40, 100, 48, 110}}; }

TEST(DamageTracker, FirstFrameRedrawsEverything) {
    DamageTracker t;
    EXPECT_EQ(frame(t, {list("A", {1}, {0, 0, 10, 10})}), (Rects{{0, 0, 800, 600}}));
}

TEST(DamageTracker, IdenticalFrameHasNoDamage) {
    DamageTracker t;
    frame(t, {list("A", {1, 2}, {0, 0, 10, 10}), list("B", {3}, {5, 5, 50, 50})});
    const Rects d = frame(t, {list("A", {1, 2}, {0, 0, 10, 10}), list("B", {3}, {5, 5, 50, 50})});
    EXPECT_TRUE(d.empty());
    EXPECT_EQ(total_area(d), 0);
}

TEST(DamageTracker, ChangedListDamagesItsOldAndNewBounds) {
    DamageTracker t;
    frame(t, {list("A", {1}, {0, 0, 10, 10}), list("B", {3}, {100, 100, 200, 150})});
    // B's contents change and it grows to the right: damage = old ∪ new bounds of B only.
    const Rects d = frame(t, {list("A", {1}, {0, 0, 10, 10}), list("B", {4}, {100, 100, 260, 150})});
    EXPECT_EQ(d, (Rects{{100, 100, 260, 150}}));
}

TEST(DamageTracker, MovedListWithSameKeyDamagesBothPlacesApart) {
    DamageTracker t;
    frame(t, {list("A", {7}, {0, 0, 10, 10})});
    EXPECT_EQ(frame(t, {list("A", {7}, {20, 0, 30, 10})}), (Rects{{0, 0, 10, 10}, {20, 0, 30, 10}}));
}

TEST(DamageTracker, AppearingAndDisappearingListsDamageTheirBounds) {
    DamageTracker t;
    frame(t, {list("A", {1}, {0, 0, 10, 10})});
    // A tooltip appears on top.
    EXPECT_EQ(frame(t, {list("A", {1}, {0, 0, 10, 10}), list("##Tooltip", {9}, {300, 300, 340, 320})}),
              (Rects{{300, 300, 340, 320}}));
    // ... and goes away again.
    EXPECT_EQ(frame(t, {list("A", {1}, {0, 0, 10, 10})}), (Rects{{300, 300, 340, 320}}));
}

TEST(DamageTracker, ReorderedListsRedrawEverything) {
    DamageTracker t;
    frame(t, {list("A", {1}, {0, 0, 10, 10}), list("B", {2}, {5, 5, 15, 15})});
    // Same contents, other z-order: overlapping pixels change, so all of it is redrawn.
    EXPECT_EQ(frame(t, {list("B", {2}, {5, 5, 15, 15}), list("A", {1}, {0, 0, 10, 10})}),
              (Rects{{0, 0, 800, 600}}));
}

TEST(DamageTracker, EpochSizeAndInvalidateRedrawEverything) {
    DamageTracker t;
    const std::vector<ListSummary> same = {list("A", {1}, {0, 0, 10, 10})};
    frame(t, same, 1);
    EXPECT_EQ(frame(t, same, 2), (Rects{{0, 0, 800, 600}})) << "font atlas changed";
    EXPECT_EQ(frame(t, same, 2, 640, 480), (Rects{{0, 0, 640, 480}})) << "window resized";
    EXPECT_TRUE(frame(t, same, 2, 640, 480).empty());
    t.invalidate();
    EXPECT_EQ(frame(t, same, 2, 640, 480), (Rects{{0, 0, 640, 480}}));
}

TEST(DamageTracker, DamageIsClippedToTheFramebuffer) {
    DamageTracker t;
    frame(t, {list("A", {1}, {700, 500, 900, 700})});
    EXPECT_EQ(frame(t, {list("A", {2}, {700, 500, 900, 700})}), (Rects{{700, 500, 800, 600}}));
}

TEST(DamageTracker, ListsWithTheSameNameMatchInOrder) {
    DamageTracker t;
    frame(t, {list("", {1}, {0, 0, 10, 10}), list("", {2}, {50, 50, 60, 60})});
    EXPECT_EQ(frame(t, {list("", {1}, {0, 0, 10, 10}), list("", {3}, {50, 50, 60, 60})}),
              (Rects{{50, 50, 60, 60}}));
}

TEST(DamageTracker, ListsChangedFarApartDamageTwoRectanglesNotTheBoxAroundBoth) {
    // A live edit: the Model panel's field (left) and the heatmap (right) change; the panel
    // between them does not.
    DamageTracker t;
    frame(t, {list("Model", {1}, {0, 0, 100, 100}), list("Input", {2}, {0, 100, 100, 600}),
              list("Heatmap", {3}, {400, 0, 800, 400})});
    const Rects d = frame(t, {list("Model", {4}, {0, 0, 100, 100}), list("Input", {2}, {0, 100, 100, 600}),
                              list("Heatmap", {5}, {400, 0, 800, 400})});
    EXPECT_EQ(d, (Rects{{0, 0, 100, 100}, {400, 0, 800, 400}}));
    EXPECT_EQ(total_area(d), 100 * 100 + 400 * 400);
}

TEST(DamageTracker, ChangedGlyphDamagesItsOwnPixelsOnly) {
    DamageTracker t;
    frame(t, {quads("Model", label())});
    std::vector<Quad> edited = label();
    edited[2].col = 0xff00ff00;  // the third glyph redrawn in another colour ("8" → "9")
    // Its box [30, 38) × [100, 110), a pixel more on each side for edge rounding.
    EXPECT_EQ(frame(t, {quads("Model", edited)}), (Rects{{29, 99, 39, 111}}));
    // The same list again: nothing.
    EXPECT_TRUE(frame(t, {quads("Model", edited)}).empty());
}

TEST(DamageTracker, InsertedGlyphShiftsLaterIndicesButDamagesOnlyItself) {
    DamageTracker t;
    frame(t, {quads("Model", label())});
    std::vector<Quad> longer = label();
    longer.insert(longer.begin() + 2, Quad{25, 100, 33, 110});  // "8" → "10": a glyph more mid-list
    // The glyphs after it keep their pixels but not their vertex indices: matched from the end.
    EXPECT_EQ(frame(t, {quads("Model", longer)}), (Rects{{24, 99, 34, 111}}));
    // Removed again: the same pixels.
    EXPECT_EQ(frame(t, {quads("Model", label())}), (Rects{{24, 99, 34, 111}}));
}

TEST(DamageTracker, GlyphsChangedAtBothEndsLeaveTheUnchangedMiddleAlone) {
    // A panel whose head counter (top) and status line (bottom) change while the axis
    // labels between them stay: two small boxes, not the panel.
    const auto panel = [](ImU32 top, ImU32 bottom) {
        std::vector<Quad> q = {{10, 10, 18, 20, top}};
        for (const Quad& g : label()) q.push_back(g);
        q.push_back({10, 300, 18, 310, bottom});
        return quads("Heatmap", q);
    };
    DamageTracker t;
    frame(t, {panel(0xffffffff, 0xffffffff)});
    EXPECT_EQ(frame(t, {panel(0xff0000ff, 0xff00ff00)}), (Rects{{9, 9, 19, 21}, {9, 299, 19, 311}}));
}

TEST(DamageTracker, ChangedClipOrMovedGlyphsDamageOldAndNewPlaces) {
    DamageTracker t;
    frame(t, {quads("Model", label())});
    std::vector<Quad> moved = label();
    moved[0] = {10, 200, 18, 210};  // the first glyph moves down
    EXPECT_EQ(frame(t, {quads("Model", moved)}), (Rects{{9, 99, 19, 111}, {9, 199, 19, 211}}));
    // A narrower clip rect changes every draw of the command: its old and new pixels.
    EXPECT_EQ(frame(t, {quads("Model", moved, ImVec4(0, 0, 35, 600))}), (Rects{{9, 99, 49, 211}}));
}

TEST(DamageTracker, ChangedHeatmapQuadDamagesItsRectangle) {
    const auto map = [](std::uint64_t key) {
        ListSummary l = quads("Heatmap", label());
        DrawStep quad;
        quad.clip = ImVec4(0, 0, 800, 600);
        quad.quad = true;
        l.key = {7, static_cast<unsigned char>(key)};  // new values uploaded: other parameters
        quad.quad_key_at = 1;
        quad.quad_key_size = 1;
        quad.quad_pixels = {199, 199, 401, 401};
        l.steps.push_back(quad);
        l.bounds = unite(l.bounds, quad.quad_pixels);
        return l;
    };
    DamageTracker t;
    frame(t, {map(1)});
    EXPECT_EQ(frame(t, {map(2)}), (Rects{{199, 199, 401, 401}}));
    EXPECT_TRUE(frame(t, {map(2)}).empty());
}

TEST(DamageTracker, SwappedOverlappingDrawsDamageTheirOverlap) {
    // Same two glyphs, drawn in the other order: where they overlap the later one shows.
    const Quad first{10, 100, 18, 110, 0xff0000ff}, second{14, 100, 22, 110, 0xff00ff00};
    DamageTracker t;
    frame(t, {quads("Model", {first, second})});
    const Rects d = frame(t, {quads("Model", {second, first})});
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(intersect(d[0], DamageRect{14, 100, 18, 110}), (DamageRect{14, 100, 18, 110}));
    EXPECT_EQ(d, (Rects{{13, 99, 23, 111}}));  // the glyph matched again is left alone
}

// Two commands, the second with its own vertex and index offsets (ImGui starts a new
// command for another clip rect or texture; VtxOffset lets indices restart at 0).
ListSummary two_commands(const std::vector<Quad>& top, const std::vector<Quad>& bottom) {
    ListSummary l = quads("Details", top);
    const ListSummary second = quads("Details", bottom, ImVec4(0, 300, 800, 600));
    DrawStep step = second.steps.front();
    step.vtx_offset = static_cast<unsigned int>(l.vertices.size());
    step.idx_offset = static_cast<unsigned int>(l.indices.size());
    l.vertices.insert(l.vertices.end(), second.vertices.begin(), second.vertices.end());
    l.indices.insert(l.indices.end(), second.indices.begin(), second.indices.end());
    l.steps.push_back(step);
    l.bounds = unite(l.bounds, second.bounds);
    return l;
}

TEST(DamageTracker, DrawsOfALaterCommandAreFoundThroughItsOffsets) {
    std::vector<Quad> bottom = {{10, 400, 18, 410}, {20, 400, 28, 410}, {30, 400, 38, 410}};
    DamageTracker t;
    frame(t, {two_commands(label(), bottom)});
    bottom[1].col = 0xff123456;
    EXPECT_EQ(frame(t, {two_commands(label(), bottom)}), (Rects{{19, 399, 29, 411}}));
}

TEST(DamageTracker, ManyRunsBecomeOneBoxOfAllOfThem) {
    // 40 glyphs, every other one recoloured: 20 runs, more than kMaxRunsPerList.
    std::vector<Quad> row;
    for (int k = 0; k < 40; ++k) row.push_back({10.0f + 10 * k, 100, 18.0f + 10 * k, 110});
    DamageTracker t;
    frame(t, {quads("Analysis", row)});
    for (int k = 0; k < 40; k += 2) row[static_cast<std::size_t>(k)].col = 0xff00ff00;
    EXPECT_EQ(frame(t, {quads("Analysis", row)}), (Rects{{9, 99, 399, 111}}));
    // Under the limit, each run apart (up to kMaxRectsPerList rectangles for the list).
    std::vector<Quad> few = label();
    frame(t, {quads("Analysis", few)});
    few[0].col = few[3].col = 0xff00ff00;
    EXPECT_EQ(frame(t, {quads("Analysis", few)}), (Rects{{9, 99, 19, 111}, {39, 99, 49, 111}}));
}

TEST(DisjointCover, UnitesOverlapsAndKeepsApartWhatIsApart) {
    // Two overlapping rectangles become their union; a third one far away stays.
    EXPECT_EQ(disjoint_cover({{0, 0, 10, 10}, {5, 5, 20, 20}, {100, 100, 110, 110}}, 8),
              (Rects{{0, 0, 20, 20}, {100, 100, 110, 110}}));
    // A union that reaches a third rectangle takes it in too.
    EXPECT_EQ(disjoint_cover({{0, 0, 10, 10}, {30, 30, 40, 40}, {5, 5, 35, 35}}, 8), (Rects{{0, 0, 40, 40}}));
    // Touching edges share no pixel: kept apart. Empty rectangles are dropped.
    EXPECT_EQ(disjoint_cover({{0, 0, 10, 10}, {10, 0, 20, 10}, {}}, 8), (Rects{{0, 0, 10, 10}, {10, 0, 20, 10}}));
}

TEST(DisjointCover, OverTheLimitUnitesThePairThatAddsFewestPixels) {
    // Limit 2: {0..10} and {12..22} side by side add 2 × 10 pixels when united; either with
    // the far one adds thousands.
    EXPECT_EQ(disjoint_cover({{0, 0, 10, 10}, {12, 0, 22, 10}, {500, 500, 510, 510}}, 2),
              (Rects{{0, 0, 22, 10}, {500, 500, 510, 510}}));
    EXPECT_EQ(disjoint_cover({{0, 0, 10, 10}, {12, 0, 22, 10}, {500, 500, 510, 510}}, 1), (Rects{{0, 0, 510, 510}}));
}

TEST(DamageRectMath, UniteIgnoresEmptyAndIntersectOfDisjointIsEmpty) {
    EXPECT_EQ(unite(DamageRect{}, DamageRect{1, 2, 3, 4}), (DamageRect{1, 2, 3, 4}));
    EXPECT_EQ(unite(DamageRect{0, 0, 2, 2}, DamageRect{5, 1, 6, 9}), (DamageRect{0, 0, 6, 9}));
    EXPECT_TRUE(intersect(DamageRect{0, 0, 2, 2}, DamageRect{2, 0, 4, 2}).empty());
    EXPECT_EQ(intersect(DamageRect{0, 0, 5, 5}, DamageRect{3, 1, 9, 4}), (DamageRect{3, 1, 5, 4}));
}

TEST(BackendScissor, ReproducesTheTruncatingArithmeticOfImguiImplOpengl3) {
    // clip (10.5, 20.25)-(100.75, 60.5) in a 600-row framebuffer:
    //   x = 10, w = (int)90.25 = 90; y_gl = (int)(600 − 60.5) = 539, h = (int)40.25 = 40
    //   -> columns [10, 100), rows from the top [600 − 579, 600 − 539) = [21, 61).
    EXPECT_EQ(backend_scissor(ImVec4(10.5f, 20.25f, 100.75f, 60.5f), ImVec2(1, 1), 600), (DamageRect{10, 21, 100, 61}));
    EXPECT_TRUE(backend_scissor(ImVec4(5, 5, 5, 9), ImVec2(1, 1), 600).empty());
}

TEST(BackendScissor, IntegerClipOfAPixelRectGivesBackExactlyThosePixels) {
    for (const DamageRect& r : {DamageRect{0, 0, 800, 600}, DamageRect{13, 7, 14, 8}, DamageRect{100, 250, 333, 599}}) {
        SCOPED_TRACE(testing::Message() << r.x0 << "," << r.y0 << " " << r.x1 << "," << r.y1);
        EXPECT_EQ(backend_scissor(clip_for_pixels(r), ImVec2(1, 1), 600), r);
    }
    EXPECT_TRUE(backend_scissor(clip_for_pixels(DamageRect{}), ImVec2(1, 1), 600).empty());
}

TEST(BackendScissor, CuttingToDamageKeepsExactlyTheCommandsPixelsInsideIt) {
    // A partial redraw replaces a command's clip by clip_for_pixels(scissor ∩ damage): the
    // pixels it may write must be exactly its full-redraw pixels that lie in the damage.
    const ImVec4 clips[] = {ImVec4(0.6f, 3.3f, 2.4f, 9.9f), ImVec4(10.5f, 20.25f, 100.75f, 60.5f),
                            ImVec4(-4.0f, -2.0f, 30.5f, 31.5f)};
    const DamageRect damages[] = {DamageRect{1, 0, 3, 40}, DamageRect{50, 30, 80, 45}, DamageRect{0, 0, 600, 600}};
    for (const ImVec4& c : clips)
        for (const DamageRect& d : damages) {
            const DamageRect full = backend_scissor(c, ImVec2(1, 1), 600);
            const DamageRect cut = backend_scissor(clip_for_pixels(intersect(full, d)), ImVec2(1, 1), 600);
            EXPECT_EQ(cut, intersect(full, d));
        }
}

TEST(OuterPixels, CoversEveryPixelTheClipCanTouch) {
    EXPECT_EQ(outer_pixels(ImVec4(0.6f, 3.3f, 2.4f, 9.9f), ImVec2(1, 1)), (DamageRect{0, 3, 3, 10}));
    EXPECT_EQ(outer_pixels(ImVec4(1, 1, 3, 3), ImVec2(2, 2)), (DamageRect{2, 2, 6, 6}));
}

TEST(ListKey, AppendsRawBytesInOrder) {
    std::vector<unsigned char> key;
    append_value(key, std::uint16_t{0x0201});
    const unsigned char more[] = {7, 8, 9};
    append_bytes(key, more, 3);
    append_bytes(key, nullptr, 0);
    EXPECT_EQ(key, (std::vector<unsigned char>{1, 2, 7, 8, 9}));  // little-endian x86
}

// Pixels covered by `rects`, counted with multiplicity (a pixel in two rects counts twice).
long long covered(const std::vector<DamageRect>& rects, int x, int y) {
    long long n = 0;
    for (const DamageRect& r : rects) n += (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1) ? 1 : 0;
    return n;
}

TEST(CutHoles, LeavesExactlyTheAreaOutsideTheHolesOnce) {
    const DamageRect area{0, 0, 40, 30};
    const std::vector<DamageRect> holes = {{10, 5, 20, 15}, {15, 10, 35, 25}, {-5, 28, 3, 40}};
    const std::vector<DamageRect> pieces = cut_holes(area, holes, 64);
    for (int y = -2; y < 32; ++y)
        for (int x = -2; x < 42; ++x) {
            const bool in_area = x >= 0 && x < 40 && y >= 0 && y < 30;
            bool in_hole = false;
            for (const DamageRect& h : holes) in_hole |= x >= h.x0 && x < h.x1 && y >= h.y0 && y < h.y1;
            ASSERT_EQ(covered(pieces, x, y), in_area && !in_hole ? 1 : 0) << "pixel " << x << "," << y;
        }
}

TEST(CutHoles, SkipsHolesThatWouldExceedThePieceLimitButStillCoversTheirPixels) {
    // A hole in the middle splits the area into 4 pieces; with a limit of 3 it is skipped.
    const DamageRect area{0, 0, 30, 30};
    EXPECT_EQ(cut_holes(area, {{10, 10, 20, 20}}, 4).size(), 4u);
    const std::vector<DamageRect> kept = cut_holes(area, {{10, 10, 20, 20}}, 3);
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0], area);
    // A hole in the top-left corner leaves the band below it and the part beside it.
    const std::vector<DamageRect> top = cut_holes(area, {{0, 0, 10, 5}}, 3);
    EXPECT_EQ(top.size(), 2u);
    EXPECT_EQ(covered(top, 5, 2), 0);
    EXPECT_EQ(covered(top, 15, 2), 1);
}

TEST(CutHoles, HoleCoveringEverythingLeavesNothing) {
    EXPECT_TRUE(cut_holes({5, 5, 10, 10}, {{0, 0, 20, 20}}, 8).empty());
    EXPECT_TRUE(cut_holes({}, {{0, 0, 20, 20}}, 8).empty());
}

TEST(InnerPixels, StaysOnePixelInsideQuadAndClip) {
    // Quad [10.5, 50.25) × [20, 60), clip [0, 40] × [0, 100]: x from ceil(10.5)+1 = 12 to
    // floor(40)−1 = 39; y from ceil(20)+1 = 21 to floor(60)−1 = 59.
    EXPECT_EQ(inner_pixels(ImVec2(10.5f, 20.0f), ImVec2(50.25f, 60.0f), ImVec4(0, 0, 40, 100)),
              (DamageRect{12, 21, 39, 59}));
    // Disjoint quad and clip, or a quad thinner than the margins: nothing.
    EXPECT_TRUE(inner_pixels(ImVec2(0, 0), ImVec2(10, 10), ImVec4(20, 20, 30, 30)).empty());
    EXPECT_TRUE(inner_pixels(ImVec2(0, 0), ImVec2(2.5f, 10), ImVec4(0, 0, 100, 100)).empty());
}

}  // namespace
}  // namespace hs
