// Input panel: the text (and decoder text for encoder-decoder), a sample picker fed by
// assets/samples.json, the tokens of the current trace as chips, and for decoder
// language models the next-token predictions (top-k with probabilities) and a
// "continue" button that appends N greedy tokens (computed on the worker).
#include <algorithm>
#include <cstdio>

#include "app/fonts.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/keys.h"
#include "app/panels/panels.h"
#include "app/panels/widgets.h"
#include "app/panels/window_extents.h"

namespace hs {
namespace {

// A note in amber, broken into lines by core's line breaker.
void amber_prose(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, kAmber);
    text_prose(text);
    ImGui::PopStyleColor();
}

// Token chips, wrapped to the panel width; at most `limit` drawn (long inputs). A chip shows
// its piece (a byte-fallback run's bytes as the character they spell); hovering it shows its
// position, id, the token as it is and the word it is part of.
void draw_chips(const std::vector<std::string>& tokens, const TokenWords& words, const std::vector<int>& ids,
                int highlight, std::size_t limit) {
    ImDrawList* list = ImGui::GetWindowDrawList();
    const float avail = ImGui::GetContentRegionAvail().x;
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float pad = 4.0f, gap = 4.0f, h = ImGui::GetTextLineHeight() + 2 * pad;
    float x = 0.0f, y = 0.0f;
    const std::size_t n = std::min(tokens.size(), limit);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string label = short_label(drawable_text(words.pieces[i]), 12);
        const float w = ImGui::CalcTextSize(label.c_str()).x + 2 * pad;
        if (x > 0.0f && x + w > avail) {
            x = 0.0f;
            y += h + gap;
        }
        const ImVec2 p0(start.x + x, start.y + y), p1(p0.x + w, p0.y + h);
        const bool hi = static_cast<int>(i) == highlight;
        list->AddRectFilled(p0, p1, hi ? IM_COL32(200, 140, 40, 255) : IM_COL32(48, 62, 84, 255), 4.0f);
        list->AddText(ImVec2(p0.x + pad, p0.y + pad), IM_COL32(235, 238, 245, 255), label.c_str());
        if (ImGui::IsMouseHoveringRect(p0, p1)) {
            const std::string full = drawable_text(token_in_word(tokens, words, static_cast<int>(i)));
            if (i < ids.size()) ImGui::SetTooltip(tr("token %zu · id %d · %s"), i, ids[i], full.c_str());
            else ImGui::SetTooltip(tr("token %zu · %s"), i, full.c_str());
        }
        x += w + gap;
    }
    ImGui::Dummy(ImVec2(avail, y + h));
    if (tokens.size() > n) ImGui::TextDisabled(tr("… and %zu more tokens"), tokens.size() - n);
}

// Top-k next-token predictions after the last position, with probability bars, and
// the "continue" button.
void draw_next_tokens(const InputPanelContext& ctx, const Trace& t) {
    AppState& s = ctx.state;
    ImGui::Separator();
    ImGui::TextUnformatted(tr("next token"));
    if (ImGui::BeginTable("##next", 3, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn(tr("token"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn(tr("p"), ImGuiTableColumnFlags_WidthStretch, 1.4f);
        ImGui::TableSetupColumn("id", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("000000").x);
        for (const Trace::NextToken& n : t.next_tokens) {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::Text("'%s'", token_label(n.text, 16).c_str());
            ImGui::TableSetColumnIndex(1);
            char pct[16];
            if (n.prob >= 0.001f) std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * n.prob);
            else std::snprintf(pct, sizeof pct, "%.1e", static_cast<double>(n.prob));
            ImGui::ProgressBar(n.prob, ImVec2(-1, ImGui::GetTextLineHeight()), pct);
            ImGui::TableSetColumnIndex(2);
            ImGui::TextDisabled("%d", n.id);
        }
        ImGui::EndTable();
    }
    // Only a model whose ids read back as text can extend it (core can_continue).
    if (!ctx.view.info.decoder_lm) return;
    if (ImGui::Button(tr("continue"))) {
        s.pending_continue = std::max(1, s.continue_n);
        s.dirty = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("append the model's greedy (argmax) tokens to the text"));
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize("0000").x + ImGui::GetFrameHeight() * 2.0f + 8.0f);
    if (ImGui::InputInt(tr("tokens###continue_n"), &s.continue_n, 1, 8)) s.continue_n = std::clamp(s.continue_n, 1, 256);
}

// A text box (the text, an encoder–decoder's decoder text): `text` wrapped to the panel in
// a box `height` tall while it is not being edited (ImGui's multi-line editor scrolls
// sideways instead of wrapping); a click opens the editor, which closes again when it
// loses the keyboard or on Esc. Both keep the edit (ImGui's Esc would put back the text
// the editor opened with). `target` names the box for a script's click.
void draw_wrapped_text_box(const InputPanelContext& ctx, const char* id, const char* target, std::string* text,
                           TextBoxView& box, float height) {
    if (!box.editing) {
        ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyle().Colors[ImGuiCol_FrameBg]);
        begin_child((std::string(id) + "_view").c_str(), ImVec2(-1, height), false);
        if (box.shown_source != *text) {  // emoji as [U+1F600] (the editor keeps them); once per text
            box.shown_source = *text;
            box.shown = drawable_text(*text);
        }
        ImGui::TextWrapped("%s", box.shown.c_str());
        end_child();
        ImGui::PopStyleColor();
        ctx.click_targets.note(target);
        if (ImGui::IsItemHovered()) ImGui::SetMouseCursor(ImGuiMouseCursor_TextInput);
        if (ImGui::IsItemClicked()) {
            box.editing = true;
            box.focus = true;
            box.cursor_to_end = true;
        }
        return;
    }
    if (box.focus) {
        // The click went to the wrapped view's child window, which took ImGui's focus scope
        // with it; ImGui 1.90 then finds no field for SetKeyboardFocusHere in this window
        // unless the window takes the focus back first.
        ImGui::SetWindowFocus();
        ImGui::SetKeyboardFocusHere();
        box.edited = *text;
    }
    const bool escape = key_pressed(Key::Escape);
    if (input_text_string(id, text, true, ImVec2(-1, height), &box.cursor_to_end)) {
        ctx.state.dirty = true;
        if (!escape) box.edited = *text;  // what Esc keeps (a copy per change, not per frame)
    }
    if (ImGui::IsItemDeactivated() && escape) {
        if (*text != box.edited) {  // ImGui put back the text the editor opened with
            *text = box.edited;
            ctx.state.dirty = true;
        }
        box.editing = false;
    }
    if (!box.focus && !ImGui::IsItemActive()) box.editing = false;  // clicked elsewhere: wrap again
    box.focus = false;
}

// The sample whose text is in the box, or null.
const Sample* loaded_sample(const InputPanelContext& ctx) {
    for (const Sample& sample : ctx.samples)
        if (sample.text == ctx.state.text && sample.decoder_text == ctx.state.decoder_text) return &sample;
    return nullptr;
}

// Under the text box: its error (empty text, more tokens than the model reads, with the
// choice to keep the first max_len), or that only the first max_len tokens are shown.
void draw_text_status(const InputPanelContext& ctx) {
    AppState& s = ctx.state;
    const TraceView& v = ctx.view;
    if (v.input_error && !v.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s%s", tr_message(v.error).c_str(), v.trace ? tr(" (the map shows the last text that ran)") : "");
        ImGui::PopStyleColor();
        if (v.input_max_len > 0) {
            char keep[128];
            std::snprintf(keep, sizeof keep, tr("keep the first %d tokens"), v.input_max_len);
            if (ImGui::Button(keep)) {
                s.keep_first_tokens = true;
                s.dirty = true;
            }
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip(tr("run the model on the text's first %d tokens; the text itself is kept"), v.input_max_len);
        }
    }
    // Characters the window's fonts cannot draw (emoji above U+FFFF, scripts without a face):
    // named, since each draws as its code points instead.
    if (const std::vector<char32_t>& missing = undrawable_code_points(s.text, 9); !missing.empty()) {
        std::string names;
        for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 8); ++i)
            names += (names.empty() ? "" : ", ") + code_point_name(missing[i]);
        amber_prose(printf_string(tr("The window's fonts cannot draw %s%s of this text: each shows as its code point "
                                     "in brackets. Exported SVG figures keep the characters."),
                                  names.c_str(), missing.size() > 8 ? " …" : ""));
    }
    // The notes below are about the trace's text: an input error means the text changed.
    if (!v.input_error && v.trace && v.byte_tokens.count > 0)
        amber_prose(printf_string(tr("%d tokens are raw bytes such as %s: this model's vocabulary has no piece "
                                     "for some characters (a model trained on English spells a Chinese character "
                                     "as 3 bytes)."),
                                  v.byte_tokens.count, v.byte_tokens.first.c_str()));
    if (!v.input_error && v.trace && !v.unknown_words.empty()) {
        const std::string words = bracketed_words(v.unknown_words);
        if (v.unknown_words.size() == 1)
            amber_prose(printf_string(tr("1 word is not in this model's vocabulary: it reads it as its unknown token (%s)."),
                                      words.c_str()));
        else
            amber_prose(printf_string(tr("%zu words are not in this model's vocabulary: it reads each as its unknown "
                                         "token and cannot tell them apart (%s)."),
                                      v.unknown_words.size(), words.c_str()));
    }
    if (!v.input_error && v.trace && (v.trace->dropped_tokens > 0 || v.trace->dropped_decoder_tokens > 0)) {
        // Wrapped, and the button beside the last line only when it fits (the panel is
        // ~290 px wide at 1280 × 720: the sentence alone ran past it).
        if (v.trace->dropped_tokens > 0)
            amber_prose(printf_string(tr("showing the first %zu tokens; %d more are left out"),
                                      v.trace->main.tokens.size(), v.trace->dropped_tokens));
        if (v.trace->dropped_decoder_tokens > 0 && v.trace->decoder)
            amber_prose(printf_string(tr("showing the first %zu decoder tokens; %d more are left out"),
                                      v.trace->decoder->tokens.size(), v.trace->dropped_decoder_tokens));
        const char* whole = tr("use the whole text");
        same_line_if_fits(button_width(whole));
        if (ImGui::SmallButton(whole)) {
            s.keep_first_tokens = false;
            s.dirty = true;
        }
    }
}

}  // namespace

void draw_input_panel(const InputPanelContext& ctx, const PanelRect& r) {
    begin_fixed_window(tr("Input###input"), r);
    AppState& s = ctx.state;
    // A worked example carries its own X: no sample picker and no text box (a greyed
    // sentence and sample read as if the example ran on them).
    const bool takes_text = s.source != SourceKind::WorkedExample;
    if (!takes_text) ImGui::TextWrapped("%s", tr("Worked examples carry their own X."));
    // Sample picker.
    if (takes_text && !ctx.samples.empty()) {
        ImGui::SetNextItemWidth(-1);
        const Sample* loaded = loaded_sample(ctx);
        const std::string preview =
            loaded ? "[" + loaded->lang + "] " + tr(loaded->title) : std::string(tr("choose a sample sentence…"));
        if (ImGui::BeginCombo("##samples", preview.c_str(), ImGuiComboFlags_HeightLarge)) {
            const auto& read = ctx.view.samples_read;  // which of them the model on screen reads whole
            for (std::size_t i = 0; i < ctx.samples.size(); ++i) {
                const Sample& sample = ctx.samples[i];
                const bool unread = read && i < read->size() && !(*read)[i];
                std::string item = "[" + sample.lang + "] " + tr(sample.title) + ": " + short_label(sample.text, 48);
                if (unread) item += std::string("   ") + tr("(outside this model's vocabulary)");
                if (unread) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
                const bool chosen = ImGui::Selectable(item.c_str(), &sample == loaded);
                if (unread) ImGui::PopStyleColor();
                if (chosen) {
                    s.text = sample.text;
                    s.decoder_text = sample.decoder_text;
                    s.dirty = true;
                }
            }
            ImGui::EndCombo();
        }
    } else if (takes_text && !ctx.samples_error.empty()) {
        ImGui::TextDisabled("%s", ctx.samples_error.c_str());
    }
    const bool enc_dec = ctx.view.trace && ctx.view.trace->decoder;
    if (takes_text) {
        ImGui::TextUnformatted(enc_dec ? tr("encoder text") : tr("text"));
        const float text_h = ImGui::GetTextLineHeight() * (enc_dec ? 3.0f : 4.5f);
        draw_wrapped_text_box(ctx, "##text", "text-box", &s.text, ctx.text_box, text_h);
        draw_text_status(ctx);
        // The trace's model has a decoder, or the playground is being edited into one (a worked
        // example or a checkpoint opened after an encoder–decoder playground has none).
        if (enc_dec || (s.source == SourceKind::Playground && s.config.arch == Arch::EncoderDecoder)) {
            ImGui::TextUnformatted(tr("decoder text (empty: same as encoder)"));
            draw_wrapped_text_box(ctx, "##dtext", "decoder-text-box", &s.decoder_text, ctx.decoder_text_box,
                                  ImGui::GetTextLineHeight() * 2.5f);
        }
    }
    // Tokens of the trace on screen; the selected query token is highlighted on hover.
    if (const Trace* t = ctx.view.trace.get()) {
        if (!t->next_tokens.empty() && s.source != SourceKind::Playground) draw_next_tokens(ctx, *t);
        ImGui::Separator();
        ImGui::Text(tr("%zu tokens"), t->main.tokens.size());
        begin_child("##chips", ImVec2(0, 0), false);
        draw_chips(t->main.tokens, ctx.view.words_of(t->main), t->main.ids, -1, 400);
        if (t->decoder) {
            ImGui::Text(tr("decoder: %zu tokens"), t->decoder->tokens.size());
            draw_chips(t->decoder->tokens, ctx.view.words_of(*t->decoder), t->decoder->ids, -1, 400);
        }
        end_child();
    }
    end_window();
}

}  // namespace hs
