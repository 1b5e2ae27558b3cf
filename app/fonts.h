#pragma once
// Fonts: DejaVu Sans for Latin text, a CJK face (WenQuanYi Micro Hei or Noto Sans CJK SC)
// merged in.
//   ImGui ≤ 1.91 (Debian 12, 13): the atlas is baked ahead at one size; its glyph ranges
//   are the Latin set (DejaVu) and ImGui's common simplified-Chinese set (the CJK face),
//   each plus every character the app has been asked to show (note_text): the common set
//   misses characters such as 秦, and DejaVu draws Greek, Cyrillic, Hebrew and Arabic
//   letters a text may hold (unshaped, in the order they are stored). A new
//   character or a new UI scale rebuilds the atlas between frames, and the stock backend's
//   font texture with it.
//   ImGui ≥ 1.92: glyphs are rasterised on demand at any size and the stock backend
//   uploads them (ImGuiBackendFlags_RendererHasTextures): the fonts are added once, a new
//   UI scale sets style.FontScaleMain, and note_text has nothing to do.
#include <set>
#include <string>
#include <vector>

#include <imgui.h>

namespace hs {

class FontManager {
public:
    // pixel_size: font height in pixels at content scale 1 (multiplied by `scale`).
    void configure(float pixel_size, float scale);
    // Records the characters of `text` (UTF-8); new ones schedule a rebuild.
    void note_text(const std::string& text);
    // note_text for a text looked at every frame (the input box): scans it only when it
    // differs from the last one given here.
    void note_edited_text(const std::string& text);
    // Rebuilds the atlas and the GL font texture when needed. Call before NewFrame().
    void rebuild_if_needed();
    std::string cjk_font_path() const { return cjk_path_; }
    std::string latin_font_path() const { return latin_path_; }
    // Whether the current font (with its merged CJK face) has a glyph for `c`.
    static bool has_glyph(ImWchar c);
    // Changes whenever text measured earlier may now measure otherwise (a rebuilt atlas).
    static int generation();

private:
    float pixel_size_ = 15.0f;
    float scale_ = 1.0f;
    bool dirty_ = true;
    bool built_once_ = false;
    std::set<ImWchar> extra_;      // code points beyond the common range
    std::string edited_text_;      // the last text given to note_edited_text
    ImVector<ImWchar> ranges_;     // must outlive the atlas build
    ImVector<ImWchar> latin_ranges_;
    std::string latin_path_, cjk_path_;
    int cjk_face_ = 0;
    void add_fonts(float size);
};

// `text` as the window can draw it: each run of code points the fonts lack (emoji, a script
// without a face, anything above U+FFFF where ImWchar is 16-bit) becomes "[U+1F600 U+1F44D]",
// so different tokens never draw as the same "?" box.
std::string drawable_text(const std::string& text);
// The distinct code points of `text` the fonts lack, in order (at most `limit`); cached for
// the last text and atlas (FontManager::generation).
const std::vector<char32_t>& undrawable_code_points(const std::string& text, std::size_t limit = 8);
// "U+1F600".
std::string code_point_name(char32_t cp);

}  // namespace hs
