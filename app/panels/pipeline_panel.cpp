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

#include "app/panels/number_grid.h"
#include "app/panels/panels.h"
#include "app/fonts.h"
#include "app/i18n/i18n.h"
#include "app/panels/widgets.h"
#include "app/panels/window_extents.h"
#include "core/error.h"

namespace hs {
namespace {

// What a card's rows or columns are: the query tokens, the key tokens (the encoder's for
// cross-attention), or features (d_model or head dimensions).
enum class CardAxis { Queries, Keys, Features };

struct Card {
    std::string title;
    const Matrix* m;
    bool weights;       // 0..1 colour range (softmax output)
    Editable edit;
    // Cell (r, c) of this card is cell (edit_offset + c, r) of the fused matrix when
    // transposed (textbook W_Q^h is a transposed row block of W_in), else (r, c).
    bool edit_transposed = false;
    int edit_offset = 0;
    CardAxis rows = CardAxis::Features, cols = CardAxis::Features;
    // The card whose colour scale this one shares (÷√d_k and + mask share Q_h K_hᵀ's, so a
    // scale shows as fainter colours), or null for its own.
    const Matrix* scale_of = nullptr;
};

// The rows and columns of each card by the matrix it shows, and the scores' shared scale.
void set_axes(std::vector<Card>& cards, const AttentionSteps& st, std::size_t h) {
    for (Card& c : cards) {
        const Matrix* m = c.m;
        if (m == &st.raw_scores[h] || m == &st.scaled_scores[h] || m == &st.masked_scores[h] || m == &st.weights[h]) {
            c.rows = CardAxis::Queries;
            c.cols = CardAxis::Keys;
        } else if (m == &st.x_query || m == &st.q_heads[h] || m == &st.qkv || m == &st.head_outputs[h] ||
                   m == &st.concat || m == &st.output) {
            c.rows = CardAxis::Queries;
        } else if (m == &st.x_memory || m == &st.k_heads[h] || m == &st.v_heads[h] || m == &st.kv_memory) {
            c.rows = CardAxis::Keys;
        }
        if (m == &st.scaled_scores[h] || m == &st.masked_scores[h]) c.scale_of = &st.raw_scores[h];
    }
}

// Where a card's numbers fit: the widest value's width, and the table's size with it.
struct NumbersFit {
    float column_w = 0.0f, widest_text_w = 0.0f, width = 0.0f, height = 0.0f;
};

// The widest of m's values printed by cell_text (at least "−∞"), measured once per trace
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
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) widest = std::max(widest, ImGui::CalcTextSize(cell_text(m(r, c)).c_str()).x);
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
            } else {
                ImGui::TextUnformatted(cell_text(v).c_str());
            }
            if (ImGui::IsItemHovered() && std::isfinite(v))
                ImGui::SetTooltip("%s [%d, %d] = %.9g", card.title.c_str(), r, c, v);  // 0-based, as the cards
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
    set_axes(cards, st, hs_);
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

// The tokens a card's rows and columns stand for: the queries' and the keys' pieces
// (core's token_words: byte-fallback runs as the characters they spell).
struct CardTokens {
    const std::vector<std::string>* queries = nullptr;
    const std::vector<std::string>* keys = nullptr;

    // "3 ' the'" for a token axis, "3" for a feature.
    std::string label(CardAxis axis, int i) const {
        const std::vector<std::string>* t = axis == CardAxis::Queries ? queries : axis == CardAxis::Keys ? keys : nullptr;
        if (!t || i >= static_cast<int>(t->size())) return std::to_string(i);
        return std::to_string(i) + " " + short_label(drawable_text((*t)[static_cast<std::size_t>(i)]), 10);
    }
    // "query 3 ' the'", "key 1 ' Tom'", "dimension 5".
    std::string name(CardAxis axis, int i) const {
        const char* what = axis == CardAxis::Queries ? tr("query") : axis == CardAxis::Keys ? tr("key") : tr("dimension");
        return std::string(what) + " " + label(axis, i);
    }
};

CardTokens card_tokens(const TraceView& view, const Trace& t) {
    const StackTrace& q = t.steps_in_decoder && t.decoder ? *t.decoder : t.main;
    const StackTrace& k = t.steps_cross ? t.main : q;
    return {&view.words_of(q).pieces, &view.words_of(k).pieces};
}

// A heatmap card's colour scale: the softmax's the heatmap's range; a card that shares
// another's (scale_of) that card's symmetric ±max|v|; else its own, at the mip level drawn.
ColorScale card_scale(const DetailPanelsContext& ctx, const Card& c, const MatrixTextures::Entry& e, float texels_per_px) {
    if (c.weights) {
        ColorScale scale = ctx.state.scale;
        if (ctx.state.auto_range) {
            scale.lo = e.min;
            scale.hi = e.max;
        }
        return scale;
    }
    if (c.scale_of)  // at the mip level drawn, as that card colours itself (same shape, same size)
        return ctx.pipeline_textures.get(ctx.view.generation, *c.scale_of, ctx.view.summaries.get())
            .symmetric_when_drawn(texels_per_px);
    return e.symmetric_when_drawn(texels_per_px);
}

// A card too large for its numbers: the matrix as a small heatmap with its colour bar and
// range; hovering reads a cell (value, row and column tokens), a click opens the card large
// as numbers (draw_open_card).
void draw_card_map(const DetailPanelsContext& ctx, const Card& c, const CardTokens& tokens, int index, float map_h,
                   ImDrawList* list, PipelineCardRect& rect) {
    const float aspect = static_cast<float>(c.m->cols()) / static_cast<float>(c.m->rows());
    const float hh = std::min(map_h, map_h * std::max(0.25f, std::min(1.0f, 1.0f / aspect)));
    const float ww = std::clamp(hh * aspect, 24.0f, map_h * 1.8f);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(("##card" + std::to_string(index)).c_str(), ImVec2(ww, hh));
    const bool hovered = ImGui::IsItemHovered(), visible = ImGui::IsItemVisible();
    if (ImGui::IsItemClicked()) {
        ctx.pipeline.open_card = c.title;
        ctx.pipeline.open_index = index;
    }
    ctx.click_targets.note("card-" + std::to_string(index));
    // Room for the colour bar and its widest possible end label, in or out of view: a card
    // keeps its width as the strip scrolls.
    const float bar = 6.0f * ctx.ui_scale, gap = 3.0f * ctx.ui_scale;
    ImGui::SameLine(0, 0);
    const float fs = ImGui::GetFontSize();
    ImGui::Dummy(ImVec2(gap + bar + 4 + ImGui::CalcTextSize("-8.888e-88").x, std::max(hh, 2.0f * fs)));
    // Cards scrolled out of view get no texture (a live edit then uploads only what is on
    // screen; W_in alone is 3 MB at d_model 512).
    if (!visible) return;
    const MatrixTextures::Entry& e = ctx.pipeline_textures.get(ctx.view.generation, *c.m, ctx.view.summaries.get());
    const float px = ImGui::GetIO().DisplayFramebufferScale.x;
    const ColorScale scale = card_scale(ctx, c, e, std::max(static_cast<float>(c.m->cols()) / (ww * px),
                                                             static_cast<float>(c.m->rows()) / (hh * px)));
    const Colormap cmap = c.weights ? ctx.state.colormap : Colormap::RedBlue;
    const ImVec2 p1(p0.x + ww, p0.y + hh);
    ctx.renderer.draw(list, e.texture, p0, p1, UvRect{}, scale, cmap);
    // The colour bar and its two ends, right of the map.
    const ImVec2 b0(p1.x + gap, p0.y), b1(b0.x + bar, p1.y);
    ctx.renderer.draw_colorbar(list, b0, b1, cmap, true);
    // Its ends at its ends; beside a map under two lines tall (X, (10, 128), at 1280×720)
    // they would overlap: one "±hi" for a symmetric scale, else hi over lo below the bar.
    const std::string hi = cell_text(scale.hi), lo = cell_text(scale.lo);
    const ImU32 ink = IM_COL32(200, 204, 212, 255);
    if (hh >= 2.0f * fs) {
        list->AddText(ImVec2(b1.x + 2, b0.y), ink, hi.c_str());
        list->AddText(ImVec2(b1.x + 2, b1.y - fs), ink, lo.c_str());
    } else if (scale.lo == -scale.hi) {
        list->AddText(ImVec2(b1.x + 2, 0.5f * (b0.y + b1.y - fs)), ink, ("±" + hi).c_str());
    } else {
        list->AddText(ImVec2(b1.x + 2, b0.y), ink, hi.c_str());
        list->AddText(ImVec2(b1.x + 2, b0.y + fs), ink, lo.c_str());
    }
    rect.scale_lo = scale.lo;
    rect.scale_hi = scale.hi;
    rect.map_x0 = p0.x;
    rect.map_y0 = p0.y;
    rect.map_x1 = p1.x;
    rect.map_y1 = p1.y;
    if (!hovered) return;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int r = std::clamp(static_cast<int>((mouse.y - p0.y) / hh * static_cast<float>(c.m->rows())), 0, static_cast<int>(c.m->rows()) - 1);
    const int col = std::clamp(static_cast<int>((mouse.x - p0.x) / ww * static_cast<float>(c.m->cols())), 0, static_cast<int>(c.m->cols()) - 1);
    ImGui::SetTooltip(tr("%s [%d, %d] = %s\n%s → %s\n(click: the card as numbers)"), c.title.c_str(), r, col,
                      cell_text((*c.m)(r, col)).c_str(), tokens.name(c.rows, r).c_str(), tokens.name(c.cols, col).c_str());
}

// One card: its title and shape, then its numbers when they fit the strip (editable in a
// worked example), else the matrix as a small heatmap. Returns where it was drawn.
PipelineCardRect draw_card(const DetailPanelsContext& ctx, const Card& c, const CardTokens& tokens, int index,
                           float map_h, float max_table_w, ImDrawList* list) {
    const float fs = ImGui::GetFontSize();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(c.title.c_str());
    ImGui::TextDisabled("%s%s", shape_string(*c.m).c_str(), c.scale_of ? tr(" · colours on Q_h K_hᵀ's scale") : "");
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
        draw_card_map(ctx, c, tokens, index, map_h, list, rect);
    }
    ImGui::EndGroup();
    const ImVec2 r0 = ImGui::GetItemRectMin(), r1 = ImGui::GetItemRectMax();
    rect.x0 = r0.x;
    rect.y0 = r0.y;
    rect.x1 = r1.x;
    rect.y1 = r1.y;
    return rect;
}

// The card opened by a click, large, as a table of numbers with its rows' and columns'
// tokens, in a window of its own; closing it (or a strip without that card) forgets it.
void draw_open_card(const DetailPanelsContext& ctx, const std::vector<Card>& cards, const CardTokens& tokens) {
    PipelineView& v = ctx.pipeline;
    v.open_rows.clear();
    v.open_cols.clear();
    // By title; else (another head renamed it: W_Q^3 → W_Q^4) the card at the same place.
    auto it = std::find_if(cards.begin(), cards.end(), [&](const Card& c) { return c.title == v.open_card; });
    if (it == cards.end() && v.open_index >= 0 && v.open_index < static_cast<int>(cards.size()))
        it = cards.begin() + v.open_index;
    if (v.open_card.empty() || it == cards.end()) {
        v.open_card.clear();
        return;
    }
    const Card& c = *it;
    v.open_card = c.title;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowSize(ImVec2(display.x * 0.6f, display.y * 0.6f), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    bool open = true;
    if (begin_window((c.title + "###pipeline_card").c_str(), &open, 0)) {
        ImGui::TextDisabled("%s", shape_string(*c.m).c_str());
        const auto row = [&](int i) { return tokens.label(c.rows, i); };
        const auto col = [&](int i) { return tokens.label(c.cols, i); };
        const GridHover h = draw_number_grid("##card_numbers", *c.m, row, col);
        if (h.row >= 0)
            ImGui::SetTooltip("%s [%d, %d] = %.9g\n%s → %s", c.title.c_str(), h.row, h.col, (*c.m)(h.row, h.col),
                              tokens.name(c.rows, h.row).c_str(), tokens.name(c.cols, h.col).c_str());
        for (int i = 0; i < std::min<int>(8, static_cast<int>(c.m->rows())); ++i) v.open_rows.push_back(row(i));
        for (int i = 0; i < std::min<int>(8, static_cast<int>(c.m->cols())); ++i) v.open_cols.push_back(col(i));
    }
    end_window();
    if (!open) v.open_card.clear();
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
    const CardTokens tokens = card_tokens(ctx.view, *t);
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
        ctx.pipeline.cards.push_back(draw_card(ctx, cards[i], tokens, static_cast<int>(i), map_h, max_table_w, list));
    }
    end_child();
    draw_open_card(ctx, cards, tokens);
}

}  // namespace hs
