// The welcome window (opened on the first launch and by F1 / Help) says what each panel
// shows and what to try; About lists the versions and licences of what HeadScope uses.
#include <GLFW/glfw3.h>  // GLFW_INCLUDE_NONE: GL comes from app/gl/gl.h

#include <string>

#include "app/gl/gl.h"
#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "app/panels/panels.h"
#include "app/panels/window_extents.h"
#include "core/about.h"

namespace hs {
namespace {

// A centred window of the given share of the display, open while *open.
bool begin_centered(const char* title, bool* open, float width_share, float height_share) {
    const ImVec2 d = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(d.x * 0.5f, d.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(d.x * width_share, d.y * height_share), ImGuiCond_Always);
    ImGui::SetNextWindowFocus();
    return begin_window(title, open, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove);
}

void bullet(const char* bold, const char* text) {  // both already in the interface language
    ImGui::Bullet();
    ImGui::TextColored(ImVec4(0.55f, 0.78f, 1.0f, 1.0f), "%s", bold);
    ImGui::SameLine();
    text_prose(text);
}

void draw_welcome(HelpView& help) {
    if (!begin_centered(tr("Welcome to HeadScope###welcome"), &help.welcome, 0.62f, 0.78f)) {
        end_window();
        return;
    }
    text_prose(tr("HeadScope shows what each attention head of a transformer does, one matrix at a time. "
                                "Everything runs on your computer; nothing is sent anywhere."));
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("What the window shows"));
    ImGui::Separator();
    bullet(tr("Model"), tr("(top left) what runs. The default model was trained on a small English and Chinese "
                           "grammar, so its heads have learned jobs. A playground has random weights you can reshape: "
                           "heads, d_model, layers, mask, positions, norm."));
    bullet(tr("Input"), tr("(bottom left) the text. Pick a sample sentence in English or Chinese, or type your own."));
    bullet(tr("Heatmap"), tr("the selected head's attention weights: row = query token, column = key token, each row "
                             "sums to 1. Hover a cell to read the weight and both tokens; scroll to zoom, drag to pan."));
    bullet(tr("All layers × heads"), tr("every head at a glance. Click one to show it in the heatmap."));
    bullet(tr("Pipeline"), tr("(bottom) every matrix of multi-head attention for the selected head, with its shape: "
                              "Q, K, V, Q·Kᵀ, ÷√d_k, the mask, softmax, A·V, the heads joined and W_O."));
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("Try this"));
    ImGui::Separator();
    text_prose(tr("1. Choose a sample sentence in the Input panel and watch which words each head looks at."));
    text_prose(tr("2. Switch the Model panel to \"playground\" and press heads − / +: every matrix changes shape."));
    text_prose(tr("3. Open the Analysis view (F3) to measure every head (entropy, distance, previous-token, "
                                "induction, relations), or the Train view (F4) to train a model and watch heads specialise."));
    text_prose(tr("4. Open a worked example (Model panel) to check a tutorial's numbers step by step."));
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("Keys"));
    ImGui::Separator();
    text_prose(tr("F1 this help · F2 / F3 / F4 Attention, Analysis, Train · ← → heads, ↑ ↓ layers · "
                                "Ctrl + / Ctrl − / Ctrl 0 text size · drop a model folder or a text file on the window"));
    ImGui::Spacing();
    if (ImGui::Button(tr("Start exploring"))) help.welcome = false;
    ImGui::SameLine();
    if (ImGui::Button(tr("About HeadScope"))) {
        help.welcome = false;
        help.about = true;
    }
    end_window();
}

// One row; every cell wraps within its column (long versions such as OpenBLAS's build
// string, and the GL renderer's, would otherwise be cut), at spaces: "Mesa 22.3.6" and
// "Apache-2.0" stay whole. Core's words are translated.
void component_row(const std::string& name, const std::string& version, const std::string& licence,
                   const std::string& role) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    text_prose(tr_message(name));
    ImGui::TableSetColumnIndex(1);
    text_prose(version.empty() ? "-" : version);
    ImGui::TableSetColumnIndex(2);
    text_prose(tr_message(licence));
    ImGui::TableSetColumnIndex(3);
    text_prose(tr_message(role), /*disabled=*/true);
}

void draw_about(HelpView& help, const FontManager& fonts) {
    if (!begin_centered(tr("About HeadScope###about"), &help.about, 0.66f, 0.7f)) {
        end_window();
        return;
    }
    ImGui::Text("HeadScope %s (git %s)", headscope_version().c_str(), headscope_revision().c_str());
    text_prose(tr("A native explorer of multi-head attention: build, edit, train and measure the model "
                                "you are looking at, head by head."));
    ImGui::Spacing();
    ImGui::TextUnformatted(tr("Built with"));
    const auto gl = [](GLenum what) {
        const GLubyte* s = glGetString(what);
        return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
    };
    if (ImGui::BeginTable("##components", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp |
                                                  ImGuiTableFlags_ScrollY,
                          ImVec2(0, ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing() * 1.5f))) {
        ImGui::TableSetupColumn(tr("component"));
        ImGui::TableSetupColumn(tr("version"));
        ImGui::TableSetupColumn(tr("licence"));
        ImGui::TableSetupColumn(tr("used for"));
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableHeadersRow();
        component_row("Dear ImGui", IMGUI_VERSION, "MIT", tr("the window's widgets"));
        component_row("GLFW", glfwGetVersionString(), "zlib", tr("window, input, OpenGL context"));
        component_row("OpenGL", gl(GL_VERSION), "-", std::string(tr("heatmaps on the GPU:")) + " " + gl(GL_RENDERER));
        for (const Component& c : core_components()) component_row(c.name, c.version, c.licence, c.role);
        const auto file_name = [](const std::string& path) { return path.substr(path.find_last_of('/') + 1); };
        if (!fonts.latin_font_path().empty())
            component_row(std::string(tr("font")) + " " + file_name(fonts.latin_font_path()), "",
                          tr("free (see the font's package)"), tr("window text"));
        if (!fonts.cjk_font_path().empty())
            component_row(std::string(tr("font")) + " " + file_name(fonts.cjk_font_path()), "",
                          tr("free (see the font's package)"), tr("window text: Chinese"));
        ImGui::EndTable();
    }
    if (ImGui::Button(tr("Close"))) help.about = false;
    end_window();
}

}  // namespace

void draw_help_windows(HelpView& help, const FontManager& fonts) {
    if (help.welcome) draw_welcome(help);
    if (help.about) draw_about(help, fonts);
}

}  // namespace hs
