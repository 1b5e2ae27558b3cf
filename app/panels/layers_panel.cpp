// Layer outputs tab: the hidden state entering layer 0 and leaving every layer,
// (T, D) each, as heatmaps (symmetric colour range), with the per-token L2 norms
// ‖h_t‖ plotted beside them, so what changes across layers can be seen.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/i18n/i18n.h"
#include "app/panels/panels.h"
#include "app/panels/widgets.h"
#include "app/panels/window_extents.h"

namespace hs {
void draw_layers_tab(const DetailPanelsContext& ctx) {
    const Trace* t = ctx.view.trace.get();
    if (!t) return;
    const StackTrace* stack = query_stack(*t, ctx.state.map == MapKind::Self ? MapKind::Self : MapKind::DecoderSelf);
    if (!stack) return;
    std::vector<const Matrix*> mats{&stack->input};
    // Rotary or no positions add nothing to the embeddings (RoPE turns Q and K inside
    // attention instead).
    const bool added_positions = t->config.pe == PosEncoding::Sinusoidal || t->config.pe == PosEncoding::Learned;
    std::vector<std::string> names{added_positions ? tr("input (embeddings + positions)") : tr("input (embeddings)")};
    for (std::size_t l = 0; l < stack->layers.size(); ++l) {
        mats.push_back(&stack->layers[l].output);
        char name[64];
        std::snprintf(name, sizeof name, tr("layer %zu output"), l);
        names.push_back(name);
    }
    // ‖h_t‖ come from the worker (core's hidden_norms), one row per matrix above.
    const HiddenNorms* norms = stack != &t->main ? ctx.view.decoder_norms.get() : ctx.view.main_norms.get();
    if (!norms || norms->norms.size() != mats.size()) return;
    const float max_norm = std::max(1e-6f, norms->max);
    begin_child("##layers", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    const float h = std::max(60.0f, ImGui::GetContentRegionAvail().y - ImGui::GetFontSize() * 5.0f);
    const float w = std::max(120.0f * ctx.ui_scale, h * 0.8f);
    ImDrawList* list = ImGui::GetWindowDrawList();
    for (std::size_t i = 0; i < mats.size(); ++i) {
        if (i) ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::TextUnformatted(names[i].c_str());
        // A worked example may end with fewer columns than D (the article's single head has
        // no output projection: its output is the head itself, (T, Dh)).
        if (mats[i]->cols() == t->config.d_model)
            ImGui::TextDisabled("%s (T, D)", shape_string(*mats[i]).c_str());
        else
            ImGui::TextDisabled(tr("%s (T, %d columns; D is %d)"), shape_string(*mats[i]).c_str(),
                                static_cast<int>(mats[i]->cols()), t->config.d_model);
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::Dummy(ImVec2(w, h));
        const MatrixTextures::Entry& e = ctx.layer_textures.get(ctx.view.generation, *mats[i], ctx.view.summaries.get());
        const float px = ImGui::GetIO().DisplayFramebufferScale.x;
        const ColorScale scale = e.symmetric_when_drawn(std::max(static_cast<float>(mats[i]->cols()) / (w * 0.7f * px),
                                                                 static_cast<float>(mats[i]->rows()) / (h * px)));
        ctx.renderer.draw(list, e.texture, p0, ImVec2(p0.x + w * 0.7f, p0.y + h), UvRect{}, scale, Colormap::RedBlue);
        // ‖h_t‖ per token as horizontal bars to the right (rows aligned with the map).
        const Vector& n = norms->norms[i];
        const float bx = p0.x + w * 0.72f, bw = w * 0.28f;
        const int T = static_cast<int>(n.size());
        const int step = std::max(1, T / static_cast<int>(h));
        for (int r = 0; r < T; r += step) {
            const float y0 = p0.y + h * r / T, y1 = p0.y + h * std::min(T, r + step) / T;
            list->AddRectFilled(ImVec2(bx, y0), ImVec2(bx + bw * n(r) / max_norm, std::max(y1 - 0.5f, y0 + 0.5f)),
                                IM_COL32(110, 170, 230, 255));
        }
        ImGui::TextDisabled(tr("mean ‖h‖ %.2f"), norms->means[i]);
        ImGui::EndGroup();
    }
    end_child();
}

}  // namespace hs
