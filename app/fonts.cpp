#include "app/fonts.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <backends/imgui_impl_opengl3.h>

#include "core/image/utf8.h"

namespace hs {
namespace {

struct FontCandidate {
    const char* path;
    int face;
};

// System fonts in order of preference (Debian packages fonts-dejavu-core,
// fonts-wqy-microhei, fonts-noto-cjk).
const FontCandidate kLatin[] = {
    {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 0},
};
const FontCandidate kCjk[] = {
    {"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0},
    {"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2},
    {"/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0},
};

// Latin face ranges: Latin, Greek (α, √-style math), phonetic superscripts (ᵀ),
// punctuation (…, ·), arrows (→), math operators (√, ×), the open box of a space token (␣),
// geometric shapes.
const ImWchar kLatinRanges[] = {0x0020, 0x024F, 0x0370, 0x03FF, 0x1D00, 0x1D7F, 0x2000, 0x206F, 0x2070, 0x209F,
                                0x2190, 0x21FF, 0x2200, 0x22FF, 0x2423, 0x2423, 0x25A0, 0x25FF, 0};

}  // namespace

void FontManager::configure(float pixel_size, float scale) {
    pixel_size_ = pixel_size;
    scale_ = scale;
    latin_path_.clear();
    cjk_path_.clear();
    for (const FontCandidate& c : kLatin)
        if (std::filesystem::exists(c.path)) { latin_path_ = c.path; break; }
    for (const FontCandidate& c : kCjk)
        if (std::filesystem::exists(c.path)) { cjk_path_ = c.path; cjk_face_ = c.face; break; }
    dirty_ = true;
}

void FontManager::note_text(const std::string& text) {
#if IMGUI_VERSION_NUM >= 19200
    (void)text;  // glyphs come on demand
#else
    for (char32_t cp : utf8_to_codepoints(text)) {
        if (cp < 0x80 || cp > 0xFFFF) continue;  // ImWchar is 16-bit in Debian's build
        if (extra_.insert(static_cast<ImWchar>(cp)).second) dirty_ = true;
    }
#endif
}

void FontManager::note_edited_text(const std::string& text) {
    if (text == edited_text_) return;  // a memcmp, not a UTF-8 decode, on unchanged frames
    edited_text_ = text;
    note_text(text);
}

namespace {
int g_generation = 0;  // FontManager::generation()
}  // namespace

int FontManager::generation() { return g_generation; }

// The Latin face at `size` pixels, the CJK face merged in; ranges as the ImGui version
// wants them (none from 1.92: glyphs come on demand).
void FontManager::add_fonts(float size) {
    ImGuiIO& io = ImGui::GetIO();
    ImFontConfig latin;
    latin.OversampleH = 2;
    latin.OversampleV = 1;
    ImFont* font = nullptr;
#if IMGUI_VERSION_NUM >= 19200
    const ImWchar* latin_ranges = nullptr;
#else
    // The Latin set ∪ every character noted so far (the faces draw what they have).
    ImFontGlyphRangesBuilder latin_builder;
    latin_builder.AddRanges(kLatinRanges);
    for (ImWchar c : extra_) latin_builder.AddChar(c);
    latin_ranges_.clear();
    latin_builder.BuildRanges(&latin_ranges_);
    const ImWchar* latin_ranges = latin_ranges_.Data;
#endif
    if (!latin_path_.empty()) font = io.Fonts->AddFontFromFileTTF(latin_path_.c_str(), size, &latin, latin_ranges);
    if (!font) {
        ImFontConfig fallback;
        fallback.SizePixels = size;
        io.Fonts->AddFontDefault(&fallback);
    }
    if (cjk_path_.empty()) return;
    ImFontConfig cjk;
    cjk.MergeMode = true;
    cjk.FontNo = cjk_face_;
    cjk.OversampleH = 1;  // keeps the atlas small (thousands of glyphs)
    cjk.OversampleV = 1;
#if IMGUI_VERSION_NUM >= 19200
    io.Fonts->AddFontFromFileTTF(cjk_path_.c_str(), size, &cjk);
#else
    // ranges = common simplified Chinese ∪ every character noted so far.
    ImFontGlyphRangesBuilder builder;
    builder.AddRanges(io.Fonts->GetGlyphRangesChineseSimplifiedCommon());
    builder.AddRanges(io.Fonts->GetGlyphRangesDefault());
    for (ImWchar c : extra_) builder.AddChar(c);
    ranges_.clear();
    builder.BuildRanges(&ranges_);
    io.Fonts->AddFontFromFileTTF(cjk_path_.c_str(), size, &cjk, ranges_.Data);
#endif
}

#if IMGUI_VERSION_NUM >= 19200
void FontManager::rebuild_if_needed() {
    if (!dirty_) return;
    dirty_ = false;
    if (!built_once_) add_fonts(pixel_size_);
    built_once_ = true;
    // GetFontSize() = FontSizeBase · FontScaleMain · FontScaleDpi; apply_theme resets the
    // style, so the scale is set again each time.
    ImGui::GetStyle().FontScaleMain = scale_;
    ++g_generation;
}

bool FontManager::has_glyph(ImWchar c) { return ImGui::GetFont()->IsGlyphInFont(c); }
#else
void FontManager::rebuild_if_needed() {
    if (!dirty_) return;
    dirty_ = false;
    ImGui::GetIO().Fonts->Clear();
    add_fonts(pixel_size_ * scale_);
    ImGui::GetIO().Fonts->Build();
    if (built_once_) {  // the stock backend's public calls for a rebuilt atlas
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    built_once_ = true;
    ++g_generation;
}

bool FontManager::has_glyph(ImWchar c) { return ImGui::GetFont()->FindGlyphNoFallback(c) != nullptr; }
#endif

namespace {

bool drawable(char32_t cp) {
    if (cp < 0x80) return true;
    if (cp > IM_UNICODE_CODEPOINT_MAX) return false;
    return FontManager::has_glyph(static_cast<ImWchar>(cp));
}

}  // namespace

std::string code_point_name(char32_t cp) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
    return buf;
}

std::string drawable_text(const std::string& text) {
    bool plain = true;  // ASCII only: nothing to look up
    for (const char c : text) plain = plain && static_cast<unsigned char>(c) < 0x80;
    if (plain) return text;
    std::u32string out;
    std::string names;  // the run of undrawable code points being collected
    const auto close_run = [&] {
        if (names.empty()) return;
        out += utf8_to_codepoints("[" + names + "]");
        names.clear();
    };
    for (const char32_t cp : utf8_to_codepoints(text)) {
        if (drawable(cp)) {
            close_run();
            out += cp;
        } else {
            names += (names.empty() ? "" : " ") + code_point_name(cp);
        }
    }
    close_run();
    return codepoints_to_utf8(out);
}

const std::vector<char32_t>& undrawable_code_points(const std::string& text, std::size_t limit) {
    static std::string cached_text;
    static int cached_generation = -1;
    static std::size_t cached_limit = 0;
    static std::vector<char32_t> cached;
    if (text == cached_text && cached_generation == FontManager::generation() && cached_limit == limit) return cached;
    cached_text = text;
    cached_generation = FontManager::generation();
    cached_limit = limit;
    cached.clear();
    for (const char32_t cp : utf8_to_codepoints(text))
        if (!drawable(cp) && cached.size() < limit && std::find(cached.begin(), cached.end(), cp) == cached.end())
            cached.push_back(cp);
    return cached;
}

}  // namespace hs
