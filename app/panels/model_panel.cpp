// Model panel: where the trace comes from (playground / worked example / model file or
// directory) and, for playgrounds, every architecture knob. Invalid combinations show
// core's validation messages inline; the last good trace stays on screen. Real models
// show their architecture in disabled (read-only) fields, parameter count, dtype, memory.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/widgets.h"
#include "app/panels/window_extents.h"
#include "core/error.h"
#include "core/assets.h"

namespace hs {
namespace {

template <typename E>
bool enum_combo(const char* label, E* value, std::initializer_list<E> choices) {
    bool changed = false;
    // The choices show in the interface language; the settings keep core's names.
    if (ImGui::BeginCombo(label, tr(to_string(*value)).c_str())) {
        for (E c : choices) {
            if (ImGui::Selectable(tr(to_string(c)).c_str(), c == *value)) {
                *value = c;
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    return changed;
}

std::vector<std::string> list_examples() {
    std::vector<std::string> out;
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(assets_dir()) / "examples";
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

// An integer field typed, or stepped with − / + through the divisors of `of` only (core's
// step_heads): 8 → 4 → 2 → 1 for 64, never an invalid split between. The buttons are
// click targets `id`- and `id`+ for scripts.
bool divisor_field(const char* id, const char* label, int& value, int of, const char* fewer_tip, const char* more_tip,
                   ClickTargets& targets) {
    const float button = ImGui::GetFrameHeight(), gap = ImGui::GetStyle().ItemInnerSpacing.x;
    const std::string name = id;
    ImGui::PushID(id);
    ImGui::SetNextItemWidth(std::max(20.0f, ImGui::CalcItemWidth() - 2.0f * (button + gap)));
    bool changed = ImGui::InputInt("##value", &value, 0, 0);
    int step = 0;
    ImGui::SameLine(0.0f, gap);
    if (ImGui::Button("-", ImVec2(button, button))) step = -1;
    targets.note(name + "-");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", fewer_tip);
    ImGui::SameLine(0.0f, gap);
    if (ImGui::Button("+", ImVec2(button, button))) step = 1;
    targets.note(name + "+");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", more_tip);
    ImGui::SameLine(0.0f, gap);
    ImGui::TextUnformatted(label);
    ImGui::PopID();
    if (step != 0) {
        const int next = step_heads(of, value, step);
        changed |= next != value;
        value = next;
    }
    return changed;
}

// The K/V head count in use, stepped through the divisors of the head count. The config's
// 0 (one K/V head per query head) shows as the head count, and choosing the head count
// stores 0 again, so a later head-count edit keeps plain multi-head attention.
bool kv_heads_field(ModelConfig& c, ClickTargets& targets) {
    int in_use = c.kv_heads > 0 ? c.kv_heads : c.heads;
    if (!divisor_field("kv_heads", tr("kv heads"), in_use, c.heads,
                       tr("fewer K/V heads: the next smaller divisor of heads (grouped-query attention)"),
                       tr("more K/V heads: the next larger divisor of heads; as many as heads is plain multi-head "
                          "attention"),
                       targets))
        return false;
    c.kv_heads = in_use == c.heads ? 0 : in_use;
    return true;
}

// A worked example's title, its description (what it shows and where the article it comes
// from is wrong) and its source, as the worker read them.
// (In Chinese when the example has it and the interface is Chinese.)
void draw_example_notes(const ModelInfo& info) {
    const std::string& title = in_ui_lang(info.example_title, info.example_title_zh);
    const std::string& description = in_ui_lang(info.example_description, info.example_description_zh);
    const std::string& source = in_ui_lang(info.example_source, info.example_source_zh);
    if (title.empty() && description.empty()) return;
    ImGui::Separator();
    if (!title.empty()) text_prose(title);
    if (!description.empty() &&
        ImGui::CollapsingHeader(info.example_from_article ? tr("what it shows, where the article errs")
                                                          : tr("what it shows"),
                                ImGuiTreeNodeFlags_DefaultOpen))
        text_prose(description);
    if (!source.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled(tr("source: %s"), source.c_str());
        ImGui::PopTextWrapPos();
    }
}

// The model's validation and compute errors (the text's own show by the text box); the
// old trace stays visible.
void draw_model_errors(const ModelPanelContext& ctx) {
    const AppState& s = ctx.state;
    if (!s.config_errors.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        for (const std::string& e : s.config_errors) ImGui::TextWrapped("%s", tr_message(e).c_str());
        ImGui::TextWrapped("%s", tr("(showing the last valid result)"));
        ImGui::PopStyleColor();
    } else if (!ctx.view.error.empty() && !ctx.view.input_error) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", tr_message(ctx.view.error).c_str());
        ImGui::PopStyleColor();
    }
}

// Which layers the window narrows: a pattern of L (local) and G (global) repeated over the
// layers; empty: all of them. Core's validate names any other letter.
bool window_layers_field(ModelConfig& c) {
    char pattern[1025];
    std::snprintf(pattern, sizeof pattern, "%s", c.window_layers.c_str());
    const bool edited = ImGui::InputTextWithHint(tr("local/global layers"), tr("every layer"), pattern, sizeof pattern,
                                                 ImGuiInputTextFlags_CharsUppercase | ImGuiInputTextFlags_CharsNoBlank);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("which layers use the window, repeated over the layers: L local (the window), "
                                   "G global (every earlier key). GL: GPT-Neo, LG: Gemma 2, LLLLLG: Gemma 3; "
                                   "empty: every layer (Mistral)"));
    if (edited) c.window_layers = pattern;
    return edited;
}

// The scores' scale: 1/√d_k (the paper's), or a number of the user's (GPT-Neo: 1, unscaled).
bool score_scale_field(ModelConfig& c) {
    bool changed = false;
    bool by_root = c.attn_scale == 0.0f;
    if (ImGui::Checkbox(tr("scale scores by 1/√d_k"), &by_root)) {
        c.attn_scale = by_root ? 0.0f : 1.0f;
        changed = true;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("off: the scores Q·Kᵀ are multiplied by a scale of your choice instead "
                                   "(GPT-Neo: 1, unscaled; larger scales give sharper maps)"));
    if (!by_root && ImGui::InputFloat(tr("score scale"), &c.attn_scale, 0.125f, 1.0f, "%.4g")) {
        c.attn_scale = std::max(0.0f, c.attn_scale);
        changed = true;
    }
    return changed;
}

// Sliding-window attention (a causal mask's last W keys) and the layers it narrows.
bool window_fields(ModelConfig& c) {
    bool changed = false;
    if (ImGui::InputInt(tr("attention window"), &c.window, 1, 8)) {
        c.window = std::max(0, c.window);
        changed = true;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("sliding-window attention (Mistral): each query sees only the last W keys, "
                                   "itself included; 0: every earlier key"));
    if (c.window > 0) changed |= window_layers_field(c);
    return changed;
}

// The rotation of rotary positions: pair layout, base θ and how many dims of a head turn.
bool rope_fields(ModelConfig& c) {
    bool changed = enum_combo(tr("rope pairs"), &c.rope_layout, {RopeLayout::RotateHalf, RopeLayout::Interleaved});
    int theta = static_cast<int>(c.rope_theta);
    if (ImGui::InputInt(tr("rope theta"), &theta, 1000, 10000)) {
        c.rope_theta = static_cast<float>(std::max(2, theta));
        changed = true;
    }
    if (ImGui::InputInt(tr("rotary dims"), &c.rotary_dims, 2, 8)) {
        c.rotary_dims = std::max(0, c.rotary_dims);
        changed = true;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("partial rotary (GPT-NeoX, Pythia): only the first R dimensions of each head "
                                   "turn by position; 0: all of them"));
    if (c.window > 0 || c.rope_local_theta > 0.0f) {  // Gemma 3: local layers turn with their own base
        int local = static_cast<int>(c.rope_local_theta);
        if (ImGui::InputInt(tr("local rope theta"), &local, 1000, 10000)) {
            c.rope_local_theta = local <= 1 ? 0.0f : static_cast<float>(local);
            changed = true;
        }
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", tr("Gemma 3: the local (windowed) layers rotate with this base θ, the global "
                                       "ones with rope theta; 0: rope theta everywhere"));
    }
    return changed;
}

// A soft-cap (Gemma 2): values x become cap · tanh(x / cap); 0: none.
bool softcap_field(const char* label, float& cap, const char* tip) {
    const bool changed = ImGui::InputFloat(label, &cap, 5.0f, 25.0f, "%.4g");
    if (changed) cap = std::max(0.0f, cap);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    return changed;
}

// The block's switches: biases, parallel attention + MLP or sandwich norms, the score scale
// and soft-caps, scaled embeddings and qk-norm.
bool block_option_fields(ModelConfig& c) {
    bool changed = false;
    bool bias = c.qkv_bias && c.out_bias && c.mlp_bias;
    if (ImGui::Checkbox(tr("biases"), &bias)) {
        c.qkv_bias = c.out_bias = c.mlp_bias = bias;
        changed = true;
    }
    if (c.norm == NormPlacement::PreLN && c.arch != Arch::EncoderDecoder) {
        changed |= ImGui::Checkbox(tr("parallel attention + MLP"), &c.parallel_block);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", tr("GPT-NeoX (Pythia), GPT-J: attention and feed-forward both read the layer's "
                                       "input, x + attn(norm1(x)) + ffn(norm2(x))"));
        changed |= ImGui::Checkbox(tr("sandwich norms"), &c.sandwich_norm);
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", tr("Gemma 2, Gemma 3: each sub-layer's output is normalised too before it joins "
                                       "the residual, x + norm(attn(norm1(x))), then x + norm(ffn(norm2(x)))"));
    }
    changed |= score_scale_field(c);
    changed |= softcap_field(tr("score soft-cap"), c.attn_softcap,
                             tr("Gemma 2: the scaled scores s become cap · tanh(s / cap) before the mask, so no score "
                                "passes ±cap (50 in Gemma 2); 0: none"));
    if (c.lm_head != LmHead::None)
        changed |= softcap_field(tr("logit soft-cap"), c.logit_softcap,
                                 tr("Gemma 2: the LM head's logits z become cap · tanh(z / cap) (30 in Gemma 2); "
                                    "0: none"));
    changed |= ImGui::Checkbox(tr("embeddings × √d_model"), &c.embed_scale);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("Gemma: each token's embedding is multiplied by √d_model before the first layer "
                                   "(the tied LM head reads the embedding as it is)"));
    changed |= ImGui::Checkbox(tr("qk-norm"), &c.qk_norm);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("QK-norm (Qwen3, Gemma 3): each head's q and k are RMS-normalised over its Dh "
                                   "dimensions and scaled by a learned γ, before the rotation"));
    return changed;
}

// d_ff = 4·d_model; nn.Transformer block → Llama block in one step (each option also
// changes alone); the architecture's defaults (the seed kept).
bool preset_buttons(ModelConfig& c) {
    bool changed = false;
    if (ImGui::Button("d_ff = 4·d_model")) {
        c.d_ff = default_d_ff(c.d_model);
        changed = true;
    }
    same_line_if_fits(button_width(tr("Llama block")));
    if (ImGui::Button(tr("Llama block"))) {
        c.arch = Arch::DecoderOnly;
        c.mask = MaskKind::Causal;
        c.pe = PosEncoding::Rotary;
        c.norm = NormPlacement::PreLN;
        c.norm_kind = NormKind::RMSNorm;
        c.activation = Activation::SwiGLU;
        c.qkv_bias = c.out_bias = c.mlp_bias = false;
        c.kv_heads = c.heads % 2 == 0 && c.heads > 1 ? c.heads / 2 : 0;
        c.lm_head = LmHead::Tied;
        changed = true;
    }
    same_line_if_fits(button_width(tr("defaults")));
    if (ImGui::Button(tr("defaults"))) {
        const std::uint64_t keep_seed = c.seed;
        c = ModelConfig::defaults_for(c.arch);
        c.seed = keep_seed;
        changed = true;
    }
    return changed;
}

void draw_playground(const ModelPanelContext& ctx) {
    ModelConfig& c = ctx.state.config;
    const ModelConfig before = c;
    bool changed = false;
    ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.55f);
    changed |= enum_combo(tr("architecture"), &c.arch,
                          {Arch::EncoderOnly, Arch::DecoderOnly, Arch::EncoderDecoder});
    changed |= ImGui::InputInt("d_model", &c.d_model, 8, 64);
    changed |= divisor_field("heads", tr("heads"), c.heads, c.d_model, tr("fewer heads: the next smaller divisor of d_model"),
                             tr("more heads: the next larger divisor of d_model"), ctx.click_targets);
    changed |= ImGui::InputInt(tr("layers"), &c.layers, 1, 1);
    changed |= ImGui::InputInt("d_ff", &c.d_ff, 64, 512);
    changed |= enum_combo(tr("mask"), &c.mask, {MaskKind::None, MaskKind::Causal});
    if (c.mask == MaskKind::Causal) changed |= window_fields(c);
    changed |= enum_combo(tr("positions"), &c.pe,
                          {PosEncoding::Sinusoidal, PosEncoding::Learned, PosEncoding::Rotary,
                           PosEncoding::None});
    if (c.pe == PosEncoding::Rotary) changed |= rope_fields(c);
    changed |= enum_combo(tr("norm"), &c.norm, {NormPlacement::PostLN, NormPlacement::PreLN});
    changed |= enum_combo(tr("norm type"), &c.norm_kind, {NormKind::LayerNorm, NormKind::RMSNorm});
    changed |= enum_combo(tr("activation"), &c.activation,
                          {Activation::ReLU, Activation::GELU, Activation::GELUTanh, Activation::SwiGLU,
                           Activation::GeGLU});
    // K < heads shares each K/V head among heads / K query heads (grouped-query attention).
    changed |= kv_heads_field(c, ctx.click_targets);
    changed |= block_option_fields(c);
    changed |= enum_combo(tr("lm head"), &c.lm_head, {LmHead::None, LmHead::Tied, LmHead::Separate});
    int seed = static_cast<int>(c.seed);
    if (ImGui::InputInt(tr("seed"), &seed)) {
        c.seed = static_cast<std::uint64_t>(std::max(0, seed));
        changed = true;
    }
    ImGui::PopItemWidth();
    changed |= preset_buttons(c);
    if (changed) {
        follow_edit(before, c);  // another architecture → its mask; d_model → d_ff when it was 4·d_model
        ctx.state.dirty = true;
    }
}

std::string format_bytes(long long bytes) {
    char buf[32];
    if (bytes >= (1LL << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1LL << 30));
    else if (bytes >= (1LL << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1LL << 20));
    else std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
    return buf;
}

std::string format_count(long long n) {
    char buf[32];
    if (n >= 1000000) std::snprintf(buf, sizeof buf, "%.2fM", static_cast<double>(n) / 1e6);
    else if (n >= 1000) std::snprintf(buf, sizeof buf, "%.1fK", static_cast<double>(n) / 1e3);
    else std::snprintf(buf, sizeof buf, "%lld", n);
    return buf;
}

// The opened model's architecture as disabled widgets (a real model's sizes are what
// the checkpoint holds; they cannot be edited).
void draw_model_info(const ModelInfo& info) {
    ImGui::BeginDisabled();
    struct Field {
        const char* label;
        int value;
        bool shown;
    };
    Field fields[] = {{"d_model", info.d_model, true},   {tr("heads"), info.heads, true},
                      {tr("kv heads"), info.kv_heads, info.grouped()}, {tr("head dim"), info.head_dim, true},
                      {tr("layers"), info.layers, true}, {"d_ff", info.d_ff, true},
                      {tr("vocab"), info.vocab, true},   {"max_len", info.max_len, info.max_len > 0}};
    std::string family = info.family;
    const float field_w = ImGui::CalcTextSize("0000000").x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::BeginTable("##arch", 2, ImGuiTableFlags_SizingStretchSame)) {
        ImGui::TableNextColumn();
        ImGui::SetNextItemWidth(field_w);
        ImGui::InputText(tr("family"), family.data(), family.size() + 1, ImGuiInputTextFlags_ReadOnly);
        for (Field& f : fields) {
            if (!f.shown) continue;
            ImGui::TableNextColumn();
            ImGui::SetNextItemWidth(field_w);
            ImGui::InputInt(f.label, &f.value, 0, 0, ImGuiInputTextFlags_ReadOnly);
        }
        ImGui::EndTable();
    }
    ImGui::EndDisabled();
    // Wrapped: at 1280 × 720 the panel is ~290 px wide.
    text_prose(printf_string(tr("%s parameters · %s · %s in memory"), format_count(info.parameters).c_str(),
                             tr_message(info.dtype).c_str(), format_bytes(info.memory_bytes).c_str()));
    if (info.grouped())
        text_disabled_wrapped(tr("grouped-query attention: %d query heads share %d K/V heads"), info.heads, info.kv_heads);
}

// A model the Train view trained, at one of its snapshots: a timeline over the steps that
// kept their weights moves every view (heatmap, grid, pipeline, analysis) through training.
void draw_trained(const ModelPanelContext& ctx, const std::vector<int>& steps) {
    AppState& s = ctx.state;
    const TrainProgress& p = ctx.train.progress;
    // The task as the Train view's box names it (translated): "text" is its "text file".
    const std::string task = train::to_string(p.task.kind);
    ImGui::TextWrapped(tr("Trained in the Train view on %s: %s"), tr(task == "text" ? "text file" : task.c_str()),
                       to_playground_spec(p.config).c_str());
    if (steps.empty() || p.run_id != s.trained_run) {
        ImGui::TextDisabled("%s", tr("that run is gone: train again, or pick another model"));
        return;
    }
    int at = 0;  // the shown step's index (the nearest kept step at or before it)
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i] <= s.trained_step) at = static_cast<int>(i);
    char label[128];
    std::snprintf(label, sizeof label, tr("step %d of %d"), steps[static_cast<std::size_t>(at)], p.total_steps);
    ImGui::SetNextItemWidth(-FLT_MIN);
    if (ImGui::SliderInt("##trained_step", &at, 0, static_cast<int>(steps.size()) - 1, label)) {
        s.trained_step = steps[static_cast<std::size_t>(at)];
        s.dirty = true;
    }
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip(tr("Drag through training: the maps, the grid and the analysis show the model at each "
                             "snapshot that kept its weights (%zu of them)."),
                          steps.size());
    if (ImGui::SmallButton(tr("use the probe as text"))) {
        if (auto snap = trained_snapshot(ctx.train, s.trained_run, s.trained_step)) show_trained_snapshot(s, ctx.train, *snap);
    }
    // Under the button: the panel is ~290 px wide at 1280 × 720.
    text_disabled_wrapped(tr("tokens: %s"), p.task.words  ? tr("English words and Chinese characters of the grammar")
                                            : p.task.text ? tr("the text's characters or words")
                                                          : "<bos> <sep> #2 … #N");
}

// One-line notices (corrupt settings ignored, file dropped, …) and a model that did not
// open, on top until dismissed: the panel below is the model still shown.
void draw_notices(AppState& s) {
    if (!s.notice.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kAmber);
        ImGui::TextWrapped("%s", tr_message(s.notice).c_str());  // the state (and its dump) keep the English
        ImGui::PopStyleColor();
        if (ImGui::SmallButton(tr("dismiss"))) s.notice.clear();
        ImGui::Separator();
    }
    // A model that did not open, on top as well: the panel below is the model still shown.
    if (!s.open_error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
        ImGui::TextWrapped("%s", tr_message(s.open_error).c_str());
        ImGui::TextWrapped("%s", tr("(still showing the last model that opened)"));
        ImGui::PopStyleColor();
        ImGui::PushID("open_error");
        if (ImGui::SmallButton(tr("dismiss"))) s.open_error.clear();
        ImGui::PopID();
        ImGui::Separator();
    }
}

// The kind of model shown: default, playground, worked example, file / dir, and a run
// trained in the Train view once there is one.
void draw_source_choice(const ModelPanelContext& ctx, const std::vector<int>& trained) {
    AppState& s = ctx.state;
    int kind = static_cast<int>(s.source);
    // The choices wrap to the next line when the panel is too narrow for them.
    const auto next_radio = [](const char* label) {
        const ImGuiStyle& style = ImGui::GetStyle();
        const float w = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    };
    bool changed = ImGui::RadioButton(tr("default model"), &kind, static_cast<int>(SourceKind::Default));
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("learned heads: the model HeadScope trains itself on English and Chinese"));
    next_radio(tr("playground"));
    changed |= ImGui::RadioButton(tr("playground"), &kind, 0);
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr("untrained: random weights you shape live (heads, d_model, layers, …)"));
    next_radio(tr("worked example"));
    changed |= ImGui::RadioButton(tr("worked example"), &kind, 1);
    next_radio(tr("file / dir"));
    changed |= ImGui::RadioButton(tr("file / dir"), &kind, 2);
    if (!trained.empty() || s.source == SourceKind::Trained) {
        next_radio(tr("trained"));
        if (ImGui::RadioButton(tr("trained"), &kind, 3) && s.source != SourceKind::Trained && !trained.empty()) {
            show_trained_snapshot(s, ctx.train, *trained_snapshot(ctx.train, ctx.train.progress.run_id, trained.back()));
            changed = false;  // show_trained_snapshot set the source
        }
    }
    if (changed && kind != 3) {
        s.source = static_cast<SourceKind>(kind);
        s.edited_example.reset();
        if (s.source == SourceKind::WorkedExample && s.example_path.empty()) {
            const auto examples = list_examples();
            if (!examples.empty()) s.example_path = examples.front();
        }
        s.dirty = true;
    }
}

// What the chosen kind shows and edits: the default model's description, the playground's
// fields, the worked example's choice and notes, a trained run's steps, a path.
void draw_source_body(const ModelPanelContext& ctx, const std::vector<int>& trained) {
    AppState& s = ctx.state;
    switch (s.source) {
        case SourceKind::Default:
            text_prose(tr("HeadScope's default model: 4 layers × 8 heads, trained by "
                          "scripts/train_default_model.sh on English and Chinese grammar sentences and "
                          "repeated sequences. It has induction heads. On sentence structures it never trained on, its "
                          "English agreement, pronoun, modifier, bracket, negation and repeated-name heads and its Chinese "
                          "negation head beat every simple baseline; its date heads and its other Chinese heads do not "
                          "(they follow the grammar's templates). The Analysis view's Relations tab measures each "
                          "(docs/DEFAULT_MODEL.md)."));
            break;
        case SourceKind::Playground:
            ImGui::PushStyleColor(ImGuiCol_Text, kAmber);
            ImGui::TextWrapped("%s", tr("untrained: random weights"));
            ImGui::PopStyleColor();
            if (ImGui::IsItemHovered())
                ImGui::SetTooltip("%s", tr("every head is noise until trained: pick \"default model\" for learned heads, "
                                           "or train this architecture in the Train view"));
            draw_model_errors(ctx);  // above the long list of fields, where an edit is seen
            draw_playground(ctx);
            break;
        case SourceKind::WorkedExample: {
            const auto examples = list_examples();
            const std::string current = std::filesystem::path(s.example_path).filename().string();
            if (ImGui::BeginCombo(tr("example"), current.c_str())) {
                for (const std::string& e : examples) {
                    const std::string name = std::filesystem::path(e).filename().string();
                    if (ImGui::Selectable(name.c_str(), e == s.example_path)) {
                        s.example_path = e;
                        s.edited_example.reset();
                        s.dirty = true;
                    }
                }
                ImGui::EndCombo();
            }
            if (examples.empty()) ImGui::TextDisabled("%s", tr("no examples in assets/examples/"));
            if (s.edited_example && ImGui::Button(tr("discard cell edits"))) {
                s.edited_example.reset();
                s.dirty = true;
            }
            ImGui::TextWrapped("%s", tr("Edit X and the weights in the Pipeline tab; results recompute live."));
            draw_example_notes(ctx.view.info);
            break;
        }
        case SourceKind::Trained: draw_trained(ctx, trained); break;
        case SourceKind::ModelDirectory: {
            draw_model_path_field(ctx.state, ctx.path_field);
            if (ctx.view.trace && ctx.view.model_arg == s.model_dir && !s.model_dir.empty()) {
                ImGui::Separator();
                ImGui::TextDisabled("%s", tr_message(ctx.view.info.kind).c_str());
                draw_model_info(ctx.view.info);
            } else if (ctx.worker.busy()) {
                ImGui::TextDisabled(tr("opening %s…"), s.model_dir.c_str());
            }
            break;
        }
    }
}

// The model shown: its name, layers × heads, parameters and timings.
void draw_model_summary(const ModelPanelContext& ctx) {
    if (const Trace* t = ctx.view.trace.get()) {
        const ModelInfo& info = ctx.view.info;  // a worked example is named by its title
        ImGui::TextWrapped("%s", t->model_name == info.example_title && !info.example_title.empty()
                                     ? in_ui_lang(info.example_title, info.example_title_zh).c_str()
                                     : t->model_name.c_str());
        // A partial trace (a big model's first layers, the others running) has fewer layers
        // than the model: the model's count is shown, and how far the forward is.
        const bool running = ctx.view.partial && info.layers > t->n_layers();
        const int layers = running ? info.layers : t->n_layers(), heads = heads_in(*t, MapKind::Self);
        const std::string layers_text = printf_string(layers == 1 ? tr("%d layer") : tr("%d layers"), layers);
        const std::string heads_text = printf_string(heads == 1 ? tr("%d head") : tr("%d heads"), heads);
        // Wrapped: "llama2.c checkpoint · 5 layers × 8 heads · d_k 8" is wider than the
        // panel at 1280 × 720.
        text_disabled_wrapped("%s · %s × %s · d_k %d", tr_message(ctx.view.source_kind).c_str(), layers_text.c_str(),
                              heads_text.c_str(), t->config.d_h());
        if (running)
            text_disabled_wrapped(tr("%s parameters · forward: %d of %d layers so far"),
                                  format_count(ctx.view.parameter_count).c_str(), t->n_layers(), info.layers);
        else if (ctx.view.parameter_count > 0)
            text_disabled_wrapped(tr("%s parameters · forward %.1f ms"), format_count(ctx.view.parameter_count).c_str(),
                                  ctx.view.forward_ms > 0.0 ? ctx.view.forward_ms : ctx.view.compute_ms);
        else
            text_disabled_wrapped(tr("forward %.1f ms"), ctx.view.compute_ms);
        if (ctx.view.load_ms > 0.0) text_disabled_wrapped(tr("model loaded in %.1f ms"), ctx.view.load_ms);
    } else if (ctx.worker.busy()) {
        ImGui::TextDisabled("%s", tr("computing…"));
    }
}

}  // namespace

void draw_model_panel(const ModelPanelContext& ctx, const PanelRect& r) {
    begin_fixed_window(tr("Model###model"), r);
    AppState& s = ctx.state;
    draw_notices(s);
    const std::vector<int> trained = trained_steps(ctx.train);
    draw_source_choice(ctx, trained);
    ImGui::Separator();
    draw_source_body(ctx, trained);
    if (s.source != SourceKind::Playground) draw_model_errors(ctx);
    ImGui::Separator();
    draw_model_summary(ctx);
    end_window();
}

}  // namespace hs
