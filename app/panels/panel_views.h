#pragma once
// What each panel remembers between frames (its own view state, not the user's choices):
// the Pipeline's layout, the text boxes, the help windows, the heatmap's zoom and hover,
// the Model panel's path field, the last export.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/gl/heatmap_renderer.h"
#include "app/path_complete.h"
#include "core/image/colormap.h"
#include "core/tensor.h"

namespace hs {

// The Pipeline tab: its layout and where each card was drawn (state dump, GUI tests).
struct PipelineCardRect {
    std::string title;
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // screen pixels of the card (title to bottom)
    bool numbers = false;                  // drawn as a table of numbers (else a heatmap)
    float column_w = 0, widest_text_w = 0;  // numbers: a column's width and its widest value
    float scale_lo = 0, scale_hi = 0;       // a heatmap: its colour bar's range
    float map_x0 = 0, map_y0 = 0, map_x1 = 0, map_y1 = 0;  // and where its map was drawn
};
struct PipelineView {
    bool textbook = true;        // per-head W_Q^h … (the articles) vs PyTorch's fused W_in
    bool article_errors_only = true;  // the Article tab lists the numbers the article got wrong first
    // The layout of the last frame that drew the Pipeline tab: fused when the trace has no
    // per-head copies (a model above d_model 1024), whatever `textbook` asks for.
    bool textbook_shown = true;
    float scroll_to = -1.0f;     // ≥ 0: scroll the strip there on the next frame (scripts)
    float visible_x0 = 0, visible_x1 = 0;  // the strip's visible screen span
    std::vector<PipelineCardRect> cards;  // of the last frame
    // The widest printed value of each small matrix of one trace generation at one font
    // size (measuring every value each frame cost ~80 ms a frame at d_model 512).
    std::uint64_t widest_generation = 0;
    float widest_font = 0.0f;
    std::map<const Matrix*, float> widest_value_w;
    // The card opened large by a click (its title; "" none), and the first row and column
    // labels its table drew last frame (the state dump's).
    std::string open_card;
    int open_index = -1;  // its place in the strip
    std::vector<std::string> open_rows, open_cols;
};

// The Input panel's text box: shown wrapped while not edited; a click edits it (ImGui's
// multi-line editor does not wrap).
struct TextBoxView {
    bool editing = false;
    bool focus = false;          // give the editor the keyboard on its first frame
    bool cursor_to_end = false;  // and its cursor the end of the text, once it has the keyboard
    std::string edited;          // the text as last edited: Esc keeps it (ImGui's Esc reverts)
    std::string shown_source, shown;  // the text and how the fonts draw it (drawable_text), cached
};

// Help windows: the welcome (first launch, F1) and About.
struct HelpView {
    bool welcome = false;
    bool about = false;
};

// Heatmap panel view: zoom/pan in map cells, hover readout.
struct HeatmapView {
    UvRect uv;                 // visible part of the map
    std::string uv_key;        // map shape the uv belongs to (reset when it changes)
    // Where the map was drawn last frame (window pixels) and with which scale: written
    // by --layout for the screenshot test.
    ImVec2 last_p0, last_p1;
    // Widest query / key label of the current trace and map (computed once per trace).
    std::string label_key;
    float row_label_w = 0.0f, col_label_w = 0.0f;
    ColorScale last_scale;
    bool drawn = false;
    // The room the map had (pixels, after labels, colour bar and captions) and the frame it
    // was drawn in; whether the colour-scale controls sit behind their button (too little
    // room), and the height they took in the toolbar and the button took instead. The
    // state dump's "heatmap", checked by gui_check fit.
    float area_w = 0.0f, area_h = 0.0f;
    int area_frame = -1;
    bool scale_behind_button = false;
    float toolbar_controls_h = 0.0f, button_h = 0.0f;
    // The token labels drawn last frame, (token index, text), rows and columns, and the
    // step between them (1: every token labelled): the state dump's "heatmap".
    std::vector<std::pair<int, std::string>> row_labels, col_labels;
    int label_step = 1;
    bool stale = false;  // the map was drawn marked stale (an invalid edit, a failed run)
    std::pair<std::string, std::string> axis_titles;  // (queries, keys) as drawn; empty: no room
};

// Model panel: the path being typed (opened on Enter / "open") and its completions.
struct ModelPanelView {
    std::string path;                  // text of the path field
    std::string synced_dir;            // state.model_dir last copied into `path`
    std::vector<PathMatch> matches;    // completions of `path`
    std::string matches_for;           // the text `matches` were listed for
    int highlight = -1;                // match chosen with ↑/↓ (−1: none)
    bool list_hovered = false;         // keep the list while the pointer is on it
};

struct ExportStatus {
    std::string last_path;        // last file written
    std::string last_error;       // last failure, shown in red
    std::string last_note;        // what the last export changed (maps shrunk to fit)
};

}  // namespace hs
