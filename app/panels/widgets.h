#pragma once
// Small drawing helpers shared by the panels.
#include <map>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/gl/texture.h"
#include "core/image/colormap.h"
#include "core/image/matrix_summary.h"
#include "core/image/token_words.h"
#include "core/tensor.h"

namespace hs {

// Amber: notes that qualify what is shown (untrained weights, text the model did not read
// as typed, results of another model).
inline const ImVec4 kAmber(1.0f, 0.82f, 0.35f, 1.0f);

// Text rotated 90° counter-clockwise (reads bottom to top), its baseline end at `pos`.
void add_text_vertical(ImDrawList* list, ImVec2 bottom_left, ImU32 color, const char* text);
// "(T, D)" for a matrix.
std::string shape_string(const Matrix& m);
// Shortens a token label to at most max_chars code points with an ellipsis.
std::string short_label(const std::string& s, std::size_t max_chars);
// A token as a label: visible_token (spaces as ␣, control characters written out), cut to
// max_chars like short_label.
std::string token_label(const std::string& token, std::size_t max_chars);
// Range for showing an arbitrary matrix whose finite values span [lo, hi]: symmetric
// ±max|v| (±1 when that is 0).
ColorScale symmetric_scale(float lo, float hi);
// Token i of `tokens` quoted as the trace holds it, with the word it is part of when that
// is more than the token: "'ir' (in 'girl')", "'<0x9F>' (in '😀')", "' little'".
std::string token_in_word(const std::vector<std::string>& tokens, const TokenWords& words, int i);
// An ImGui text field over a std::string (grown as the user types). While *cursor_to_end
// is true the cursor goes to the end of the text on the field's first active frame, and
// *cursor_to_end turns false (a box clicked open to add to its text).
bool input_text_string(const char* label, std::string* value, bool multiline = false,
                       ImVec2 size = ImVec2(0, 0), bool* cursor_to_end = nullptr);
// A one-line field for a file or folder path: when the user leaves it, a leading "~" or
// "~/" becomes the home folder (shown in the field), as a shell would read it.
bool input_path_string(const char* label, std::string* value);

// Textures for matrices that belong to one trace; re-uploaded when the generation changes,
// except that a matrix equal to one of the previous generation (the model's W_in, W_o when
// only the text changed) takes over its texture: uploading a (2304, 768) weight costs the
// UI thread tens of ms under software GL. Each matrix's value range and mip levels come
// from the trace worker's summaries (core's summarize_shown_matrices): the UI scans nothing.
class MatrixTextures {
public:
    struct Entry {
        FloatTexture texture;
        float min = 0.0f, max = 0.0f;  // over finite values
        ColorScale symmetric;          // ±max|v|
        std::vector<ColorScale> mip_symmetric;  // ± each mip level's bound (core's mip_bound)
        Matrix values;                 // what `texture` holds (to recognise it next generation)
        // The symmetric scale of the level GL samples when the texture is drawn
        // `texels_per_pixel` texels to a screen pixel (core's sampled_mip_level): a signed
        // matrix's averages are far smaller than its values, and on level 0's scale a
        // zoomed-out weight matrix showed as blank white.
        ColorScale symmetric_when_drawn(float texels_per_pixel) const;
    };
    // `summaries` of the trace `m` belongs to; a matrix missing from them is shown on ±1.
    const Entry& get(std::uint64_t generation, const Matrix& m, const MatrixSummaries* summaries);

private:
    std::uint64_t generation_ = 0;
    std::map<const Matrix*, Entry> entries_;
    std::map<const Matrix*, Entry> previous_;  // entries of the previous generation
};

// Toolbars that wrap instead of clipping: SameLine() only when an item `next_width`
// wide still fits the window's content region after the last item; else the next item
// starts a new line. The widths of common widgets (label included):
void same_line_if_fits(float next_width);
float labeled_width(float item_width, const char* label);  // SetNextItemWidth + label
float button_width(const char* label);
float checkbox_width(const char* label);

// printf into a std::string (a translated format whose arguments may be long).
std::string printf_string(const char* format, ...);
// "wrote PATH" in the interface language.
std::string wrote_status(const std::string& path);

// Widgets a script may click (`click NAME`, app/script.cpp): where each was drawn, in
// screen pixels, and in which frame. A panel calls note() right after drawing one.
class ClickTargets {
public:
    struct Target {
        ImVec2 min, max;
        int frame = -1;  // ImGui::GetFrameCount() when drawn
    };
    void note(const std::string& name);  // the last item, under `name`, when it is visible
    // The target drawn visible in the last two frames, or null.
    const Target* recent(const std::string& name) const;
    // Whether `name` was drawn in the last two frames but scrolled out of its window.
    bool scrolled_out(const std::string& name) const;
    // Scroll `name` into view (to the middle of its window) where it is next drawn, as a
    // user scrolls the panel before clicking.
    void reveal(const std::string& name) { reveal_ = name; }
    // The names of the targets drawn recently, for an error message.
    std::string recent_names() const;

private:
    std::map<std::string, Target> targets_;
    std::map<std::string, int> scrolled_out_;  // name → the frame it was drawn out of view
    std::string reveal_;
};

// Long prose (worked-example notes, the welcome) wrapped by core's break_lines: numbers
// and formulas stay whole, Chinese breaks between characters and never before "，" or
// "。"; ImGui's own wrap splits "16.971" at its point and leaves half-empty lines in
// Chinese. The lines are cached per text, width and font size.
void text_prose(const std::string& text, bool disabled = false);
// The lines text_prose draws for `width`, joined by "\n" (to measure them before drawing).
std::string prose_lines(const std::string& text, float width);

// TextDisabled that wraps at the window's edge instead of widening it (explanations).
void text_disabled_wrapped(const char* format, ...);

}  // namespace hs
