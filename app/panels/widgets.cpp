#include "app/panels/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <tuple>

#include "app/i18n/i18n.h"
#include "app/panels/panels.h"
#include "app/panels/window_extents.h"
#include "core/image/box_mean.h"
#include "core/tokenize/visible_token.h"
#include "core/image/line_break.h"
#include "core/image/utf8.h"

namespace hs {

void begin_fixed_window(const char* name, const PanelRect& r, ImGuiWindowFlags extra) {
    ImGui::SetNextWindowPos(r.pos, ImGuiCond_Always);
    ImGui::SetNextWindowSize(r.size, ImGuiCond_Always);
    begin_window(name, nullptr,
                 ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                     ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoBringToFrontOnFocus | extra);
}

void add_text_vertical(ImDrawList* list, ImVec2 bottom_left, ImU32 color, const char* text) {
    // Draw horizontally at the pivot, then rotate the new vertices by −90° about it:
    // (x, y) -> (px + (y − py), py − (x − px)).
    const int first = list->VtxBuffer.Size;
    const float h = ImGui::GetFontSize(), w = ImGui::CalcTextSize(text).x;
    // ImGui culls and cuts glyphs against the clip rect as the text is laid out, before
    // the rotation: against a label band above a map the last letters of a label at the
    // map's right edge were dropped and descenders cut ("happy" drew as "happ"). The text
    // is laid out under a clip rect holding both its horizontal and its rotated extent;
    // the caller keeps the rotated text inside its own band (HeatmapPanel shortens it).
    const ImVec2 lo(bottom_left.x - h, bottom_left.y - w - h), hi(bottom_left.x + w + h, bottom_left.y + h);
    list->PushClipRect(lo, hi, false);
    list->AddText(ImVec2(bottom_left.x, bottom_left.y - h), color, text);
    list->PopClipRect();
    const ImVec2 pivot(bottom_left.x, bottom_left.y);
    for (int i = first; i < list->VtxBuffer.Size; ++i) {
        ImVec2& p = list->VtxBuffer[i].pos;
        const float dx = p.x - pivot.x, dy = p.y - pivot.y;
        p = ImVec2(pivot.x + dy + h, pivot.y - dx);
    }
}

std::string shape_string(const Matrix& m) {
    return "(" + std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + ")";
}

std::string short_label(const std::string& s, std::size_t max_chars) {
    const std::u32string cps = utf8_to_codepoints(s);
    if (cps.size() <= max_chars) return s;
    return codepoints_to_utf8(cps.substr(0, max_chars - 1)) + "…";
}

std::string token_label(const std::string& token, std::size_t max_chars) {
    return short_label(visible_token(token), max_chars);
}

std::string token_in_word(const std::vector<std::string>& tokens, const TokenWords& words, int i) {
    const std::string& token = tokens[static_cast<std::size_t>(i)];
    const std::string quoted = "'" + visible_token(token) + "'";
    const std::string* word = enclosing_word(words, i, token);
    return word ? printf_string(tr("%s (in '%s')"), quoted.c_str(), word->c_str()) : quoted;
}

ColorScale symmetric_scale(float lo, float hi) {
    const float a = std::max(std::fabs(lo), std::fabs(hi));
    ColorScale s;
    s.lo = a > 0.0f ? -a : -1.0f;
    s.hi = a > 0.0f ? a : 1.0f;
    return s;
}

namespace {
struct TextFieldData {
    std::string* value;
    bool* cursor_to_end;  // may be null
};

int text_field_callback(ImGuiInputTextCallbackData* data) {
    auto* field = static_cast<TextFieldData*>(data->UserData);
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        field->value->resize(static_cast<std::size_t>(data->BufTextLen));
        data->Buf = field->value->data();
    } else if (data->EventFlag == ImGuiInputTextFlags_CallbackAlways && field->cursor_to_end && *field->cursor_to_end) {
        data->CursorPos = data->SelectionStart = data->SelectionEnd = data->BufTextLen;
        *field->cursor_to_end = false;
    }
    return 0;
}
}  // namespace

bool input_text_string(const char* label, std::string* value, bool multiline, ImVec2 size, bool* cursor_to_end) {
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_CallbackResize;
    if (cursor_to_end && *cursor_to_end) flags |= ImGuiInputTextFlags_CallbackAlways;
    TextFieldData data{value, cursor_to_end};
    if (multiline)
        return ImGui::InputTextMultiline(label, value->data(), value->capacity() + 1, size, flags,
                                         text_field_callback, &data);
    return ImGui::InputText(label, value->data(), value->capacity() + 1, flags, text_field_callback, &data);
}

bool input_path_string(const char* label, std::string* value) {
    const bool changed = input_text_string(label, value);
    if (ImGui::IsItemDeactivatedAfterEdit()) *value = typed_path(*value);
    return changed;
}

ColorScale MatrixTextures::Entry::symmetric_when_drawn(float texels_per_pixel) const {
    const int level = texture.mipmapped() ? sampled_mip_level(texels_per_pixel, static_cast<int>(mip_symmetric.size())) : 0;
    return level == 0 ? symmetric : mip_symmetric[static_cast<std::size_t>(level) - 1];
}

const MatrixTextures::Entry& MatrixTextures::get(std::uint64_t generation, const Matrix& m,
                                                 const MatrixSummaries* summaries) {
    if (generation != generation_) {
        previous_ = std::move(entries_);
        entries_.clear();
        generation_ = generation;
    }
    auto it = entries_.find(&m);
    if (it != entries_.end() && it->second.texture.rows() == m.rows() &&
        it->second.texture.cols() == m.cols())
        return it->second;
    for (auto old = previous_.begin(); old != previous_.end(); ++old) {
        const Matrix& v = old->second.values;
        if (v.rows() == m.rows() && v.cols() == m.cols() &&
            std::memcmp(v.data(), m.data(), sizeof(float) * static_cast<std::size_t>(m.size())) == 0) {
            Entry& e = entries_[&m] = std::move(old->second);
            previous_.erase(old);
            return e;
        }
    }
    Entry& e = entries_[&m];
    // New contents: into the storage of a last-generation texture of the same shape when
    // there is one (glTexSubImage2D instead of allocating a texture).
    for (auto old = previous_.begin(); old != previous_.end(); ++old)
        if (old->second.texture.rows() == m.rows() && old->second.texture.cols() == m.cols()) {
            e.texture = std::move(old->second.texture);
            previous_.erase(old);
            break;
        }
    e.values = m;
    e.texture.upload(m);
    const auto summary = summaries ? summaries->find(&m) : MatrixSummaries::const_iterator{};
    if (summaries && summary != summaries->end()) {
        e.texture.upload_mip_levels(summary->second.mip_levels);
        e.min = summary->second.lo;
        e.max = summary->second.hi;
        e.mip_symmetric.clear();
        for (const float a : summary->second.mip_bound) e.mip_symmetric.push_back(symmetric_scale(-a, a));
    } else {
        e.min = e.max = 0.0f;
        e.mip_symmetric.clear();
    }
    e.symmetric = symmetric_scale(e.min, e.max);
    return e;
}

void same_line_if_fits(float next_width) {
    const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + next_width;
    if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}

float labeled_width(float item_width, const char* label) {
    return item_width + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

float button_width(const char* label) {
    return ImGui::CalcTextSize(label, nullptr, true).x + 2.0f * ImGui::GetStyle().FramePadding.x;
}

float checkbox_width(const char* label) {
    return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

namespace {

std::string vprintf_string(const char* format, va_list args) {
    va_list copy;
    va_copy(copy, args);
    const int n = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    std::string out(static_cast<std::size_t>(std::max(n, 0)), '\0');
    if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, args);
    return out;
}

}  // namespace

std::string printf_string(const char* format, ...) {
    va_list args;
    va_start(args, format);
    std::string out = vprintf_string(format, args);
    va_end(args);
    return out;
}

std::string wrote_status(const std::string& path) { return printf_string(tr("wrote %s"), path.c_str()); }

void ClickTargets::note(const std::string& name) {
    if (ImGui::IsItemVisible()) {
        targets_[name] = Target{ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), ImGui::GetFrameCount()};
        return;
    }
    targets_.erase(name);  // scrolled out or clipped: a click there would hit something else
    scrolled_out_[name] = ImGui::GetFrameCount();
    if (name == reveal_) {
        ImGui::SetScrollHereY(0.5f);  // the cursor is on the item's line: the window scrolls it to its middle
        ImGui::SetScrollHereX(0.5f);  // and sideways (a Pipeline card off the strip's edge)
        reveal_.clear();
    }
}

bool ClickTargets::scrolled_out(const std::string& name) const {
    const auto it = scrolled_out_.find(name);
    return it != scrolled_out_.end() && it->second >= ImGui::GetFrameCount() - 1;
}

const ClickTargets::Target* ClickTargets::recent(const std::string& name) const {
    const auto it = targets_.find(name);
    if (it == targets_.end() || it->second.frame < ImGui::GetFrameCount() - 1) return nullptr;
    return &it->second;
}

std::string ClickTargets::recent_names() const {
    std::string out;
    for (const auto& [name, target] : targets_)
        if (recent(name)) out += (out.empty() ? "" : ", ") + name;
    return out.empty() ? "none" : out;
}

std::string prose_lines(const std::string& text, float width) {
    // The font's glyph count is in the key: a rebuilt atlas with new characters (a language
    // switch) measures them differently from the fallback glyph they had before.
    struct Key {
        std::string text;
        float width, font;
        int glyphs;
        bool operator<(const Key& o) const {
            return std::tie(text, width, font, glyphs) < std::tie(o.text, o.width, o.font, o.glyphs);
        }
    };
    static std::map<Key, std::string> cache;
    Key key{text, std::floor(std::max(1.0f, width)), ImGui::GetFontSize(), FontManager::generation()};
    auto it = cache.find(key);
    if (it == cache.end()) {
        if (cache.size() > 256) cache.clear();  // room for the About table's cells
        std::string joined;
        for (const std::string& line : break_lines(text, key.width, [](std::string_view s) {
                 return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x;
             }))
            joined += (joined.empty() ? "" : "\n") + line;
        it = cache.emplace(std::move(key), std::move(joined)).first;
    }
    return it->second;
}

void text_prose(const std::string& text, bool disabled) {
    const std::string lines = prose_lines(text, ImGui::GetContentRegionAvail().x);
    if (disabled) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextUnformatted(lines.c_str());
    if (disabled) ImGui::PopStyleColor();
}

void text_disabled_wrapped(const char* format, ...) {
    va_list args;
    va_start(args, format);
    const std::string text = vprintf_string(format, args);
    va_end(args);
    text_prose(text, true);  // core's line breaker: numbers and identifiers stay whole
}

}  // namespace hs
