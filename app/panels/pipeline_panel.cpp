// Pipeline tab: the selected layer's multi-head attention step by step, in order:
//   X (T, D) → W_in (3I, D) → QKV (T, 3I) = X·W_inᵀ + b_in → Q_h, K_h, V_h (T, Dk)
//   → Q_h K_hᵀ (T, S) → ÷√Dk → + mask → softmax → ·V_h (T, Dk) → concat (T, I)
//   → W_o (D, I) → output (T, D) = concat·W_oᵀ + b_o
// Each card shows the shape, numbers (4 significant digits, the full value on hover) when
// ≤ 8×8, a heatmap otherwise. For worked
// examples X, W_in and W_o are editable cells; an edit recomputes on the worker.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "app/panels/panels.h"
#include "app/panels/widgets.h"
#include "core/error.h"

namespace hs {
namespace {

struct Card {
    std::string title;
    const Matrix* m;
    bool weights;       // 0..1 colour range (softmax output)
    Editable edit;
};

void draw_numbers(AppContext& ctx, const Card& card, float cell_w) {
    const Matrix& m = *card.m;
    const bool editable = card.edit != Editable::No && ctx.state.source == SourceKind::WorkedExample;
    // The table's own width, given outright: with the default (the space left in the
    // window) a card beyond the visible part of the scrolled strip got a width of
    // nothing and its columns collapsed to slivers.
    float widest = editable ? cell_w : ImGui::CalcTextSize("−∞").x;
    char text[32];
    for (Eigen::Index r = 0; r < m.rows() && !editable; ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            std::snprintf(text, sizeof text, "%.4g", m(r, c));
            widest = std::max(widest, ImGui::CalcTextSize(text).x);
        }
    const float pad = ImGui::GetStyle().CellPadding.x;
    const float width = static_cast<float>(m.cols()) * (widest + 2.0f * pad + 1.0f) + 1.0f;
    if (!ImGui::BeginTable(card.title.c_str(), static_cast<int>(m.cols()),
                           ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit, ImVec2(width, 0.0f)))
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
                if (ImGui::InputFloat("##v", &x, 0.0f, 0.0f, "%.4g", ImGuiInputTextFlags_EnterReturnsTrue))
                    try {
                        edit_worked_example_cell(ctx.state, card.edit, r, c, x);
                    } catch (const Error& e) {
                        ctx.state.notice = e.what();
                    }
                ImGui::PopID();
            } else if (std::isinf(v)) {
                ImGui::TextUnformatted(v < 0 ? "−∞" : "∞");
            } else {
                ImGui::Text("%.4g", v);  // 4 significant digits: 0.007031, not 0.01
            }
            if (ImGui::IsItemHovered() && std::isfinite(v))
                ImGui::SetTooltip("%s[%d, %d] = %.9g", card.title.c_str(), r, c, v);
        }
    }
    ImGui::EndTable();
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

void draw_pipeline_tab(AppContext& ctx) {
    const Trace* t = ctx.view.trace.get();
    if (!t) return;
    const bool want_decoder = ctx.state.map != MapKind::Self;
    const bool want_cross = ctx.state.map == MapKind::DecoderCross;
    const bool matches = t->steps && t->steps_layer == ctx.state.layer &&
                         (!t->decoder || (t->steps_in_decoder == want_decoder && t->steps_cross == want_cross));
    if (!matches) {
        ImGui::TextDisabled(ctx.worker.busy() ? "computing the steps of layer %d…"
                                              : "steps of layer %d are requested…", ctx.state.layer);
        return;
    }
    const AttentionSteps& st = *t->steps;
    const int h = std::clamp(ctx.state.head, 0, static_cast<int>(st.weights.size()) - 1);
    const std::size_t hs_ = static_cast<std::size_t>(h);
    char scale_title[64];
    std::snprintf(scale_title, sizeof scale_title, "÷√d_k (×%.3f)", st.scale);
    // Rotary positions: Q_h and K_h are shown after their rotation by position (the
    // scores use them); QKV is before it.
    const bool rotated = t->config.pe == PosEncoding::Rotary && !t->steps_cross;
    const std::string rope_note = rotated ? " · RoPE" : "";
    std::vector<Card> cards = {
        {"X", &st.x_query, false, Editable::X},
        {"W_in = [W_Q; W_K; W_V]", &st.w_in, false, Editable::WIn},
        {"QKV = X·W_inᵀ + b", &st.qkv, false, Editable::No},
        {"Q_h" + std::to_string(h) + rope_note, &st.q_heads[hs_], false, Editable::No},
        {"K_h" + std::to_string(h) + rope_note, &st.k_heads[hs_], false, Editable::No},
        {"V_h" + std::to_string(h), &st.v_heads[hs_], false, Editable::No},
        {"Q_h K_hᵀ", &st.raw_scores[hs_], false, Editable::No},
        {scale_title, &st.scaled_scores[hs_], false, Editable::No},
        {"+ mask", &st.masked_scores[hs_], false, Editable::No},
        {"softmax", &st.weights[hs_], true, Editable::No},
        {"A_h · V_h", &st.head_outputs[hs_], false, Editable::No},
        {"concat", &st.concat, false, Editable::No},
        {"W_o", &st.w_out, false, Editable::WOut},
        {"output = concat·W_oᵀ + b", &st.output, false, Editable::No},
    };
    ImGui::TextDisabled("layer %d%s, head %d (select another head in the grid or with ←/→)", t->steps_layer,
                        t->steps_cross ? " cross-attention" : "", h);
    if (const int kv = t->steps_cross ? -1 : kv_head_of(*t, h); kv >= 0) {
        // Under GQA the steps hold K/V repeated per query head: K_h and V_h of this head
        // are the columns of key/value head kv.
        const int group = t->config.heads / t->config.kv_head_count();
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(0.6f, 0.75f, 1.0f, 1.0f),
                           "grouped-query attention: head %d reads K/V head %d (shared by heads %d–%d); "
                           "K_h%d and V_h%d below are that head's, repeated",
                           h, kv, kv * group, kv * group + group - 1, h, h);
    }
    ImGui::BeginChild("##pipeline", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    const float fs = ImGui::GetFontSize();
    const float map_h = std::max(60.0f, ImGui::GetContentRegionAvail().y - fs * 4.0f);
    ImDrawList* list = ImGui::GetWindowDrawList();
    for (std::size_t i = 0; i < cards.size(); ++i) {
        const Card& c = cards[i];
        if (i) {
            ImGui::SameLine();
            ImGui::TextDisabled("→");
            ImGui::SameLine();
        }
        ImGui::BeginGroup();
        ImGui::TextUnformatted(c.title.c_str());
        ImGui::TextDisabled("%s", shape_string(*c.m).c_str());
        if (c.m->rows() == 0 || c.m->cols() == 0) {
            ImGui::TextDisabled("(empty)");
        } else if ((c.m->rows() <= 8 && c.m->cols() <= 8) ||
                   (c.edit != Editable::No && ctx.state.source == SourceKind::WorkedExample &&
                    c.m->rows() <= 16 && c.m->cols() <= 16)) {
            draw_numbers(ctx, c, fs * 4.2f);
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
                ColorScale scale = e.symmetric;
                if (c.weights) {
                    scale = ctx.state.scale;
                    if (ctx.state.auto_range) {
                        scale.lo = e.min;
                        scale.hi = e.max;
                    }
                }
                ctx.renderer->draw(list, e.texture, p0, ImVec2(p0.x + ww, p0.y + hh), UvRect{}, scale,
                                   c.weights ? ctx.state.colormap : Colormap::RedBlue);
            }
        }
        ImGui::EndGroup();
    }
    ImGui::EndChild();
}

}  // namespace hs
