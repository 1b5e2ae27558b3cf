// Input panel: the text (and decoder text for encoder-decoder), a sample picker fed by
// assets/samples.json, and the tokens of the current trace as chips.
#include <algorithm>

#include "app/panels/panels.h"
#include "app/panels/widgets.h"

namespace hs {
namespace {

// Token chips, wrapped to the panel width; at most `limit` drawn (long inputs).
void draw_chips(const std::vector<std::string>& tokens, int highlight, std::size_t limit) {
    ImDrawList* list = ImGui::GetWindowDrawList();
    const float avail = ImGui::GetContentRegionAvail().x;
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float pad = 4.0f, gap = 4.0f, h = ImGui::GetTextLineHeight() + 2 * pad;
    float x = 0.0f, y = 0.0f;
    const std::size_t n = std::min(tokens.size(), limit);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string label = short_label(tokens[i], 12);
        const float w = ImGui::CalcTextSize(label.c_str()).x + 2 * pad;
        if (x > 0.0f && x + w > avail) {
            x = 0.0f;
            y += h + gap;
        }
        const ImVec2 p0(start.x + x, start.y + y), p1(p0.x + w, p0.y + h);
        const bool hi = static_cast<int>(i) == highlight;
        list->AddRectFilled(p0, p1, hi ? IM_COL32(200, 140, 40, 255) : IM_COL32(48, 62, 84, 255), 4.0f);
        list->AddText(ImVec2(p0.x + pad, p0.y + pad), IM_COL32(235, 238, 245, 255), label.c_str());
        x += w + gap;
    }
    ImGui::Dummy(ImVec2(avail, y + h));
    if (tokens.size() > n) ImGui::TextDisabled("… and %zu more tokens", tokens.size() - n);
}

}  // namespace

void draw_input_panel(AppContext& ctx, const PanelRect& r) {
    begin_fixed_window("Input", r);
    AppState& s = ctx.state;
    // Sample picker.
    if (!ctx.samples.empty()) {
        ImGui::SetNextItemWidth(-1);
        if (ImGui::BeginCombo("##samples", "choose a sample sentence…", ImGuiComboFlags_HeightLarge)) {
            for (const Sample& sample : ctx.samples) {
                const std::string item = "[" + sample.lang + "] " + sample.title + ": " + short_label(sample.text, 48);
                if (ImGui::Selectable(item.c_str(), sample.text == s.text)) {
                    s.text = sample.text;
                    s.decoder_text = sample.decoder_text;
                    s.dirty = true;
                }
            }
            ImGui::EndCombo();
        }
    } else if (!ctx.samples_error.empty()) {
        ImGui::TextDisabled("%s", ctx.samples_error.c_str());
    }
    const bool takes_text = s.source != SourceKind::WorkedExample;
    if (!takes_text) ImGui::TextDisabled("Worked examples carry their own X.");
    ImGui::BeginDisabled(!takes_text);
    const bool enc_dec = ctx.view.trace && ctx.view.trace->decoder;
    ImGui::TextUnformatted(enc_dec ? "encoder text" : "text");
    const float text_h = ImGui::GetTextLineHeight() * (enc_dec ? 3.0f : 4.5f);
    if (input_text_string("##text", &s.text, true, ImVec2(-1, text_h))) s.dirty = true;
    if (enc_dec || s.config.arch == Arch::EncoderDecoder) {
        ImGui::TextUnformatted("decoder text (empty: same as encoder)");
        if (input_text_string("##dtext", &s.decoder_text, true, ImVec2(-1, ImGui::GetTextLineHeight() * 2.5f)))
            s.dirty = true;
    }
    ImGui::EndDisabled();
    // Tokens of the trace on screen; the selected query token is highlighted on hover.
    if (const Trace* t = ctx.view.trace.get()) {
        ImGui::Separator();
        ImGui::Text("%zu tokens", t->main.tokens.size());
        ImGui::BeginChild("##chips", ImVec2(0, 0), false);
        draw_chips(t->main.tokens, -1, 400);
        if (t->decoder) {
            ImGui::Text("decoder: %zu tokens", t->decoder->tokens.size());
            draw_chips(t->decoder->tokens, -1, 400);
        }
        ImGui::EndChild();
    }
    ImGui::End();
}

}  // namespace hs
