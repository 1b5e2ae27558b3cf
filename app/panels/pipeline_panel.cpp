// Pipeline tab: the selected layer's multi-head attention for the selected head, step by
// step, in one of two layouts of the same numbers:
//   textbook (the articles):  X (T, D) → W_Q^h (D, Dh) → Q_h = X·W_Q^h + b (T, Dh) → W_K^h → K_h
//     → W_V^h → V_h → Q_h K_hᵀ (T, S) → ÷√Dh (or the model's scale) → + mask → softmax → A_h·V_h (T, Dh)
//     → concat (T, I) → W_O (I, D) → output = concat·W_O + b (T, D)
//   PyTorch (fused):  X → W_in (I + 2·Ikv, D) → QKV = X·W_inᵀ + b_in (T, I + 2·Ikv) → Q_h, K_h,
//     V_h → … → W_o (D, I) → output = concat·W_oᵀ + b_o
// Cross-attention adds the memory M (S, D), the encoder's output: K and V come from it
// (K_h = M·W_K^h; fused: Q = X·W_Qᵀ and [K|V] = M·[W_K; W_V]ᵀ).
// "+ b" only where the bias is not all zeros (AttentionSteps::q_bias … out_bias).
// Each card shows its shape and, when the table fits the space the strip has, its numbers
// (4 significant digits, the full value on hover); a heatmap otherwise. For worked
// examples X, the projections and W_O are editable cells in either layout; an edit
// recomputes on the worker.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "app/panels/panels.h"
#include "app/i18n/i18n.h"
#include "app/panels/widgets.h"
#include "app/panels/window_extents.h"
#include "core/error.h"

namespace hs {
namespace {

struct Card {
    std::string title;
    const Matrix* m;
    bool weights;       // 0..1 colour range (softmax output)
    Editable edit;
    // Cell (r, c) of this card is cell (edit_offset + c, r) of the fused matrix when
    // transposed (textbook W_Q^h is a transposed row block of W_in), else (r, c).
    bool edit_transposed = false;
    int edit_offset = 0;
};

// Where a card's numbers fit: the widest value's width, and the table's size with it.
struct NumbersFit {
    float column_w = 0.0f, widest_text_w = 0.0f, width = 0.0f, height = 0.0f;
};

// A value as a cell prints it: 4 significant digits (0.007031, not 0.01), trailing zeros
// kept unless the value is a whole number, so 3.9997 reads "4.000" and 0.99296 "0.9930"
// (as "4" and "0.993" they looked exact, or less precise than they are) while 2 stays "2".
void cell_number(float v, char* text, std::size_t size) {
    const bool whole = v == std::nearbyint(v) && std::fabs(v) < 1e4f;
    std::snprintf(text, size, whole ? "%.4g" : "%#.4g", static_cast<double>(v));
}

// The widest of m's values printed by cell_number (at least "−∞"), measured once per trace
// generation and font size.
float widest_value_w(PipelineView& view, std::uint64_t generation, const Matrix& m) {
    const float font = ImGui::GetFontSize();
    if (view.widest_generation != generation || view.widest_font != font) {
        view.widest_value_w.clear();
        view.widest_generation = generation;
        view.widest_font = font;
    }
    if (const auto it = view.widest_value_w.find(&m); it != view.widest_value_w.end()) return it->second;
    float widest = ImGui::CalcTextSize("−∞").x;
    char text[32];
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            cell_number(m(r, c), text, sizeof text);
            widest = std::max(widest, ImGui::CalcTextSize(text).x);
        }
    return view.widest_value_w[&m] = widest;
}

// Editable cells are `cell_w` wide (an input field); others as wide as the widest value.
NumbersFit numbers_fit(const Matrix& m, float widest) {
    NumbersFit f;
    const ImGuiStyle& style = ImGui::GetStyle();
    f.widest_text_w = widest;
    f.column_w = widest;
    f.width = static_cast<float>(m.cols()) * (widest + 2.0f * style.CellPadding.x + 1.0f) + 1.0f;
    f.height = static_cast<float>(m.rows()) * (ImGui::GetTextLineHeight() + 2.0f * style.CellPadding.y + 1.0f) + 1.0f;
    return f;
}

void draw_numbers(const DetailPanelsContext& ctx, const Card& card, const NumbersFit& fit) {
    const Matrix& m = *card.m;
    const bool editable = card.edit != Editable::No && ctx.state.source == SourceKind::WorkedExample;
    // The table's own width, given outright: with the default (the space left in the
    // window) a card beyond the visible part of the scrolled strip got a width of
    // nothing and its columns collapsed to slivers.
    const float widest = fit.column_w, cell_w = fit.column_w;
    if (!ImGui::BeginTable(card.title.c_str(), static_cast<int>(m.cols()),
                           ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit, ImVec2(fit.width, 0.0f)))
        return;
    for (int c = 0; c < m.cols(); ++c) ImGui::TableSetupColumn(nullptr, ImGuiTableColumnFlags_WidthFixed, widest);
    for (int r = 0; r < m.rows(); ++r) {
        ImGui::TableNextRow();
        for (int c = 0; c < m.cols(); ++c) {
            ImGui::TableSetColumnIndex(c);
            const float v = m(r, c);
            if (editable) {
                float x = v;
                ImGui::PushID(r * 64 + c);
                ImGui::SetNextItemWidth(cell_w);
                // The value typed into the active cell (one at a time) is committed once, when
                // the cell is left (Enter, Tab, a click elsewhere): ImGui 1.92 refuses
                // EnterReturnsTrue on numeric inputs, and a commit per keystroke would
                // recompute the model for every digit.
                static float typed = 0.0f;
                if (ImGui::InputFloat("##v", &x, 0.0f, 0.0f, "%.4g")) typed = x;
                if (ImGui::IsItemDeactivatedAfterEdit())
                    try {
                        if (card.edit_transposed) edit_worked_example_cell(ctx.state, card.edit, card.edit_offset + c, r, typed);
                        else edit_worked_example_cell(ctx.state, card.edit, r, c, typed);
                    } catch (const Error& e) {
                        ctx.state.notice = e.what();
                    }
                ImGui::PopID();
            } else if (std::isinf(v)) {
                ImGui::TextUnformatted(v < 0 ? "−∞" : "∞");
            } else {
                char text[32];
                cell_number(v, text, sizeof text);
                ImGui::TextUnformatted(text);
            }
            if (ImGui::IsItemHovered() && std::isfinite(v))
                ImGui::SetTooltip("%s[%d, %d] = %.9g", card.title.c_str(), r + 1, c + 1, v);
        }
    }
    ImGui::EndTable();
}

// The cards of head h's steps, left to right: X (and M), the projections (per head in the
// textbook layout, fused otherwise), the scores, scale, mask, softmax, A·V, concat, W_O and
// the output.
std::vector<Card> pipeline_cards(const Trace& trace, const AttentionSteps& st, int h, bool textbook) {
    const Trace* t = &trace;
    const std::size_t hs_ = static_cast<std::size_t>(h);
    char scale_title[96];
    const int n = trace.config.attn_scale > 0.0f  // the model's own scale (GPT-Neo's 1: unscaled)
                      ? std::snprintf(scale_title, sizeof scale_title, "×%.4g", st.scale)
                      : std::snprintf(scale_title, sizeof scale_title, "÷√d_k (×%.3f)", st.scale);
    if (st.softcap > 0.0f)  // Gemma 2: the scaled scores s soft-capped to c·tanh(s / c)
        std::snprintf(scale_title + n, sizeof scale_title - static_cast<std::size_t>(n), " → %g·tanh(s/%g)",
                      st.softcap, st.softcap);
    // QK-norm and rotary positions: Q_h and K_h are shown after the norm and the rotation
    // by position (the scores use them); QKV is before them.
    const bool rotated = t->config.pe == PosEncoding::Rotary && !t->steps_cross;
    const bool qk_normed = t->config.qk_norm && !t->steps_cross;
    const std::string qk_note = std::string(qk_normed ? " · QK-norm" : "") + (rotated ? " · RoPE" : "");
    const std::string hn = std::to_string(h);
    const int I = static_cast<int>(st.concat.cols()), Dh = I / std::max(1, static_cast<int>(st.weights.size()));
    // "+ b" only where a bias is not all zeros; the output is the concatenation itself
    // when W_O is the identity (a worked example without an output projection).
    const auto plus_b = [](bool bias) { return std::string(bias ? " + b" : ""); };
    const std::string plus_b_out = plus_b(st.out_bias);
    // W_in: (I + 2·Ikv, D); head h reads K/V head g (kv_head_of under GQA, else h): rows
    // I + g·Dh of W_K and I + Ikv + g·Dh of W_V.
    const int Ikv = (static_cast<int>(st.w_in.rows()) - I) / 2;
    const int kv_head = kv_head_of(*t, h), g = kv_head >= 0 ? kv_head : h;
    // K and V cards are named by the head that owns them: the key/value head under GQA
    // ("K_kv2": heads 4 and 5 both read it), else the query head itself.
    const std::string kn = kv_head >= 0 ? "kv" + std::to_string(g) : hn, kh = kv_head >= 0 ? kn : "h" + hn;
    // Cross-attention: queries from X (the decoder), keys and values from the memory M.
    const bool cross = t->steps_cross;
    const std::string kv_from = cross ? "M" : "X";
    // Pre-norm layers attend over the normalised input: X is LN(h) (or RMSNorm(h)), not
    // the layer input h the Layer outputs tab shows.
    const bool pre_norm = t->config.norm == NormPlacement::PreLN;
    const std::string x_title = !pre_norm ? "X"
                                : t->config.norm_kind == NormKind::RMSNorm ? "X = RMSNorm(h)"
                                                                           : "X = LayerNorm(h)";
    std::vector<Card> cards = {{x_title, &st.x_query, false, Editable::X}};
    if (cross) cards.push_back({"M", &st.x_memory, false, Editable::No});
    if (textbook) {
        cards.push_back({"W_Q^" + hn, &st.w_q_heads[hs_], false, Editable::WIn, true, h * Dh});
        cards.push_back({"Q_" + hn + " = X·W_Q^" + hn + plus_b(st.q_bias) + qk_note, &st.q_heads[hs_], false, Editable::No});
        cards.push_back({"W_K^" + kn, &st.w_k_heads[hs_], false, Editable::WIn, true, I + g * Dh});
        cards.push_back({"K_" + kn + " = " + kv_from + "·W_K^" + kn + plus_b(st.k_bias) + qk_note, &st.k_heads[hs_], false,
                         Editable::No});
        cards.push_back({"W_V^" + kn, &st.w_v_heads[hs_], false, Editable::WIn, true, I + Ikv + g * Dh});
        cards.push_back({"V_" + kn + " = " + kv_from + "·W_V^" + kn + plus_b(st.v_bias), &st.v_heads[hs_], false,
                         Editable::No});
    } else if (cross) {
        cards.push_back({"W_in = [W_Q; W_K; W_V]", &st.w_in, false, Editable::WIn});
        cards.push_back({"Q = X·W_Qᵀ" + plus_b(st.q_bias), &st.qkv, false, Editable::No});
        cards.push_back({"KV = M·[W_K; W_V]ᵀ" + plus_b(st.k_bias || st.v_bias), &st.kv_memory, false, Editable::No});
        cards.push_back({"Q_h" + hn, &st.q_heads[hs_], false, Editable::No});
        cards.push_back({"K_" + kh, &st.k_heads[hs_], false, Editable::No});
        cards.push_back({"V_" + kh, &st.v_heads[hs_], false, Editable::No});
    } else {
        cards.push_back({"W_in = [W_Q; W_K; W_V]", &st.w_in, false, Editable::WIn});
        cards.push_back({"QKV = X·W_inᵀ" + plus_b(st.q_bias || st.k_bias || st.v_bias), &st.qkv, false, Editable::No});
        cards.push_back({"Q_h" + hn + qk_note, &st.q_heads[hs_], false, Editable::No});
        cards.push_back({"K_" + kh + qk_note, &st.k_heads[hs_], false, Editable::No});
        cards.push_back({"V_" + kh, &st.v_heads[hs_], false, Editable::No});
    }
    cards.push_back({kv_head >= 0 ? "Q_h K_kvᵀ" : "Q_h K_hᵀ", &st.raw_scores[hs_], false, Editable::No});
    cards.push_back({scale_title, &st.scaled_scores[hs_], false, Editable::No});
    cards.push_back({st.masked ? tr("+ mask") : tr("+ mask (none: every key is seen)"), &st.masked_scores[hs_], false,
                     Editable::No});
    cards.push_back({"softmax", &st.weights[hs_], true, Editable::No});
    cards.push_back({kv_head >= 0 ? "A_h · V_kv" : "A_h · V_h", &st.head_outputs[hs_], false, Editable::No});
    const std::string concat = tr("concat"), output = tr("output");
    // W_O = I (a worked example without an output projection, or one that assumes I):
    // the output is the concat.
    const std::string identity_note = st.out_identity ? tr(" (W_O = I: output = concat)") : "";
    cards.push_back({concat, &st.concat, false, Editable::No});
    if (textbook) {
        cards.push_back({"W_O", &st.w_o, false, Editable::WOut, true, 0});
        cards.push_back({output + " = " + concat + "·W_O" + plus_b_out + identity_note, &st.output, false, Editable::No});
    } else {
        cards.push_back({"W_o", &st.w_out, false, Editable::WOut});
        cards.push_back({output + " = " + concat + "·W_oᵀ" + plus_b_out + identity_note, &st.output, false, Editable::No});
    }
    return cards;
}

// The layout switch (textbook or PyTorch's fused layout) and the lines that say what the
// cards show: the layout, a large model without the textbook's copies, cross-attention,
// grouped-query attention.
void draw_layout_switch(const DetailPanelsContext& ctx, const Trace& trace, int h, bool textbook, bool textbook_available) {
    const Trace* t = &trace;
    const bool cross = t->steps_cross;
    const int kv_head = kv_head_of(*t, h);
    ImGui::TextUnformatted(tr("layout:"));
    ImGui::SameLine();
    // The buttons show the layout drawn: fused when the textbook's copies are missing.
    // (A click on either while the textbook is unavailable keeps the choice for the next
    // model; the line under the buttons says why.)
    ImGui::BeginDisabled(!textbook_available);
    if (ImGui::RadioButton(tr("textbook"), textbook)) ctx.pipeline.textbook = true;
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::RadioButton(tr("PyTorch (fused)"), !textbook) && textbook_available) ctx.pipeline.textbook = false;
    ImGui::SameLine();
    ImGui::TextDisabled(tr("layer %d%s, head %d (select another head in the grid or with ←/→)"), t->steps_layer,
                        t->steps_cross ? tr(" cross-attention") : "", h);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped("%s", textbook ? tr("Same numbers as PyTorch's fused layout: its W_in = [W_Q; W_K; W_V] stacks "
                                            "every head's W_Q^h, W_K^h, W_V^h transposed, QKV = X·W_inᵀ holds Q, K, V "
                                            "side by side, and its W_o is W_O transposed.")
                                       : tr("PyTorch's nn.MultiheadAttention layout: W_in = [W_Q; W_K; W_V] stacks the "
                                            "projections; the textbook's W_Q^h is rows h·d_k … of W_Q, transposed, and "
                                            "its W_O is W_o transposed."));
    if (!textbook_available)
        ImGui::TextWrapped("%s", tr("The textbook layout is for models up to d_model 1024: a larger model's per-head "
                                    "copies would cost too much memory."));
    if (cross)
        ImGui::TextWrapped("%s", tr("Cross-attention: the queries come from X, the decoder's tokens; the keys and "
                                    "values from M, the encoder's output."));
    ImGui::PopStyleColor();
    if (const int kv = t->steps_cross ? -1 : kv_head; kv >= 0) {
        // Under GQA the steps hold K/V repeated per query head: K_h and V_h of this head
        // are the columns of key/value head kv.
        const int group = t->config.heads / t->config.kv_head_count();
        ImGui::TextColored(ImVec4(0.6f, 0.75f, 1.0f, 1.0f),
                           tr("grouped-query attention: head %d reads K/V head %d (shared by heads %d–%d); "
                              "K_kv%d and V_kv%d below are the keys and values of K/V head %d"),
                           h, kv, kv * group, kv * group + group - 1, kv, kv, kv);
    }
}

// One card: its title and shape, then its numbers when they fit the strip (editable in a
// worked example), else the matrix as a small heatmap. Returns where it was drawn.
PipelineCardRect draw_card(const DetailPanelsContext& ctx, const Card& c, float map_h, float max_table_w, ImDrawList* list) {
    const float fs = ImGui::GetFontSize();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(c.title.c_str());
    ImGui::TextDisabled("%s", shape_string(*c.m).c_str());
    PipelineCardRect rect{c.title};
    const bool editable = c.edit != Editable::No && ctx.state.source == SourceKind::WorkedExample;
    if (c.m->rows() == 0 || c.m->cols() == 0) {
        ImGui::TextDisabled("%s", tr("(empty)"));
    } else if (const NumbersFit fit = c.m->size() > 1024 ? NumbersFit{}  // a map, not measured
                                      : numbers_fit(*c.m, editable ? fs * 4.2f
                                                                   : widest_value_w(ctx.pipeline, ctx.view.generation, *c.m));
               c.m->size() <= 1024 && fit.height <= map_h + fs && (fit.width <= max_table_w || editable)) {
        draw_numbers(ctx, c, fit);
        rect.numbers = true;
        rect.column_w = fit.column_w;
        rect.widest_text_w = fit.widest_text_w;
    } else {
        const float aspect = static_cast<float>(c.m->cols()) / static_cast<float>(c.m->rows());
        const float hh = std::min(map_h, map_h * std::max(0.25f, std::min(1.0f, 1.0f / aspect)));
        const float ww = std::clamp(hh * aspect, 24.0f, map_h * 1.8f);
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::Dummy(ImVec2(ww, hh));
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s %s", c.title.c_str(), shape_string(*c.m).c_str());
        // Cards scrolled out of view get no texture (a live edit then uploads only
        // what is on screen; W_in alone is 3 MB at d_model 512).
        if (ImGui::IsItemVisible()) {
            const MatrixTextures::Entry& e = ctx.pipeline_textures.get(ctx.view.generation, *c.m, ctx.view.summaries.get());
            const float px = ImGui::GetIO().DisplayFramebufferScale.x;
            ColorScale scale = e.symmetric_when_drawn(std::max(static_cast<float>(c.m->cols()) / (ww * px),
                                                               static_cast<float>(c.m->rows()) / (hh * px)));
            if (c.weights) {
                scale = ctx.state.scale;
                if (ctx.state.auto_range) {
                    scale.lo = e.min;
                    scale.hi = e.max;
                }
            }
            ctx.renderer.draw(list, e.texture, p0, ImVec2(p0.x + ww, p0.y + hh), UvRect{}, scale,
                               c.weights ? ctx.state.colormap : Colormap::RedBlue);
        }
    }
    ImGui::EndGroup();
    const ImVec2 r0 = ImGui::GetItemRectMin(), r1 = ImGui::GetItemRectMax();
    rect.x0 = r0.x;
    rect.y0 = r0.y;
    rect.x1 = r1.x;
    rect.y1 = r1.y;
    return rect;
}

}  // namespace

void edit_worked_example_cell(AppState& s, Editable which, int r, int c, float value) {
    if (s.source != SourceKind::WorkedExample) throw Error("only worked examples have editable cells.");
    auto ex = std::make_shared<WorkedExample>(s.edited_example ? *s.edited_example
                                                               : load_worked_example(s.example_path));
    Matrix* target = which == Editable::X ? &ex->x
                     : which == Editable::WIn ? &ex->weights.in_proj_weight
                                              : &ex->weights.out_proj_weight;
    if (r < 0 || c < 0 || r >= target->rows() || c >= target->cols())
        throw Error("cell (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the " +
                    std::to_string(target->rows()) + "×" + std::to_string(target->cols()) + " matrix.");
    (*target)(r, c) = value;
    s.edited_example = std::move(ex);
    s.dirty = true;
}

void draw_pipeline_tab(const DetailPanelsContext& ctx) {
    const Trace* t = ctx.view.trace.get();
    if (!t) return;
    const bool want_decoder = ctx.state.map != MapKind::Self;
    const bool want_cross = ctx.state.map == MapKind::DecoderCross;
    const bool matches = t->steps && t->steps_layer == ctx.state.layer &&
                         (!t->decoder || (t->steps_in_decoder == want_decoder && t->steps_cross == want_cross));
    if (!matches) {
        ImGui::TextDisabled(ctx.worker.busy() ? tr("computing the steps of layer %d…")
                                              : tr("steps of layer %d are requested…"), ctx.state.layer);
        return;
    }
    const AttentionSteps& st = *t->steps;
    const int h = std::clamp(ctx.state.head, 0, static_cast<int>(st.weights.size()) - 1);
    const bool textbook_available = st.w_q_heads.size() == st.weights.size();
    const bool textbook = ctx.pipeline.textbook && textbook_available;
    ctx.pipeline.textbook_shown = textbook;
    const std::vector<Card> cards = pipeline_cards(*t, st, h, textbook);
    draw_layout_switch(ctx, *t, h, textbook, textbook_available);
    begin_child("##pipeline", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    if (ctx.pipeline.scroll_to >= 0.0f) {
        ImGui::SetScrollX(ctx.pipeline.scroll_to);
        ctx.pipeline.scroll_to = -1.0f;
    }
    ctx.pipeline.cards.clear();
    ctx.pipeline.visible_x0 = ImGui::GetWindowPos().x;
    ctx.pipeline.visible_x1 = ImGui::GetWindowPos().x + ImGui::GetWindowSize().x;
    const float fs = ImGui::GetFontSize();
    const float map_h = std::max(60.0f, ImGui::GetContentRegionAvail().y - fs * 4.0f);
    // Numbers when the table fits the strip's height (and a third of its width): the
    // threshold follows the space, not a fixed 8×8.
    const float max_table_w = std::max(fs * 20.0f, ImGui::GetContentRegionAvail().x * 0.34f);
    ImDrawList* list = ImGui::GetWindowDrawList();
    for (std::size_t i = 0; i < cards.size(); ++i) {
        if (i) {
            ImGui::SameLine();
            ImGui::TextDisabled("→");
            ImGui::SameLine();
        }
        ctx.pipeline.cards.push_back(draw_card(ctx, cards[i], map_h, max_table_w, list));
    }
    end_child();
}

}  // namespace hs
