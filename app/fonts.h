#pragma once
// Fonts: DejaVu Sans for Latin text, a CJK face (WenQuanYi Micro Hei or Noto Sans CJK SC)
// merged in.
//   ImGui ≤ 1.91 (Debian 12, 13): the atlas is baked ahead at one size; its CJK glyph
//   ranges are ImGui's common simplified-Chinese set plus every character the app has been
//   asked to show (note_text), since the common set misses characters such as 秦. A new
//   character or a new UI scale rebuilds the atlas between frames, and the stock backend's
//   font texture with it.
//   ImGui ≥ 1.92: glyphs are rasterised on demand at any size and the stock backend
//   uploads them (ImGuiBackendFlags_RendererHasTextures): the fonts are added once, a new
//   UI scale sets style.FontScaleMain, and note_text has nothing to do.
#include <set>
#include <string>

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
    std::string latin_path_, cjk_path_;
    int cjk_face_ = 0;
    void add_fonts(float size);
};

}  // namespace hs
