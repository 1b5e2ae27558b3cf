// gui_check long-text: what the window did with a text over max_len, an empty text, a
// 600-token text, byte tokens and words outside a vocabulary (tests/gui/run_long_text_test.sh); gui_check article: the worked
// example's comparison with the article (run_article_test.sh). From the state dumps.
#include <map>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

#include "tests/gui/gui_check_util.h"

#include "core/image/png.h"
#include "core/image/rgb_image.h"
#include "core/open_source.h"
#include "core/source.h"

namespace hs::gui_check {

int check_long_text(char** argv) {
    const std::string dir = argv[2];
    const nlohmann::json too_long = read_json(dir + "/too_long.json");
    const std::string error = too_long.at("error");
    check(error == "the text has 40 tokens; this model handles at most 16",
          "a text over max_len names both counts (got '" + error + "')");
    check(too_long.at("input_error") == true, "that error is the text's: shown by the text box");

    const nlohmann::json kept = read_json(dir + "/kept.json");
    check(kept.at("error") == "", "keep-first clears the error");
    check(kept.at("token_count") == 16 && kept.at("dropped_tokens") == 24,
          "keep-first runs the first 16 tokens and leaves 24 out (got " + kept.at("token_count").dump() + " and " +
              kept.at("dropped_tokens").dump() + ")");

    const nlohmann::json empty = read_json(dir + "/empty.json");
    check(empty.at("input_error") == true && std::string(empty.at("error")).find("empty") != std::string::npos,
          "an empty text is an input error saying so");

    const nlohmann::json longer = read_json(dir + "/long.json");
    check(longer.at("token_count") == 600, "the 600-token text ran");
    const nlohmann::json& range = longer.at("range");
    const float hi = range.at("hi"), lo = range.at("lo"), max = range.at("max");
    check(max == 1.0f, "the causal map's max is 1 (the first query attends only to itself)");
    check(hi < 0.5f && hi > lo, "the auto range's top (" + std::to_string(hi) + ") is the robust high, not the max");

    const nlohmann::json bytes = read_json(dir + "/bytes.json");
    check(bytes.at("byte_tokens") == 6, "'小明 ok' on stories260K: the Input panel notes 6 byte tokens (3 per character; got " +
                                            bytes.at("byte_tokens").dump() + ")");
    check(bytes.at("unknown_words").empty(), "byte fallback spells any word: none is unknown");
    // The default model's grammar words: two invented words read as <unk>, named once each
    // (the vocabulary is core's; the words were made up for this test).
    const nlohmann::json unknown = read_json(dir + "/unknown.json");
    const auto source = hs::open_source("default");
    const hs::Tokens tokens = source->tokenize(unknown.at("text").get<std::string>());
    int unk = 0;
    for (int id : tokens.ids) unk += id == 1;
    check(unk == 3 && unknown.at("unknown_words") == nlohmann::json::array({"zzyzx", "qwopp"}),
          "the default model notes its two unknown words, once each (got " + unknown.at("unknown_words").dump() + ")");
    return failures ? 1 : 0;
}

}  // namespace hs::gui_check

namespace hs::gui_check {

// The single-head article example: values by hand (e^(7/√2) = 141.14).
int check_article(char** argv) {
    const nlohmann::json state = read_json(argv[2]);
    const nlohmann::json& rows = state.at("article");
    check(rows.size() == 32, "the Article tab has the 8 printed steps × 4 numbers (got " + std::to_string(rows.size()) + ")");
    int wrong = 0;
    bool softmax_seen = false;
    for (const nlohmann::json& r : rows) {
        wrong += !r.at("agrees").get<bool>();
        if (r.at("step") == "weights" && r.at("row") == 0 && r.at("col") == 0) {
            softmax_seen = true;
            const double ours = r.at("ours"), printed = r.at("printed");
            check(std::abs(ours - 0.0070354) < 1e-5, "softmax (1, 1) is 0.00704 = 1/(1 + e^(7/√2)) (got " +
                                                        std::to_string(ours) + ")");
            check(std::abs(printed - 0.016) < 1e-6, "beside the article's 0.016");
            check(!r.at("agrees").get<bool>(), "which is marked wrong");
        }
    }
    check(softmax_seen, "the softmax cell (1, 1) is listed");
    check(wrong == 6, "6 printed numbers are wrong: softmax, A·V and output row 1 (got " + std::to_string(wrong) + ")");
    return failures ? 1 : 0;
}

}  // namespace hs::gui_check

namespace hs::gui_check {

// run_chinese_ui_test.sh: the first launch in Chinese, the next remembering it.
int check_chinese_ui(char** argv) {
    const std::string dir = argv[2];
    const nlohmann::json first = read_json(dir + "/first.json");
    check(first.at("ui_lang") == "zh", "--lang zh puts the interface in Chinese");
    check(first.at("help").at("welcome") == true, "the first launch (no settings yet) opens the welcome");
    check(first.at("missing_glyphs") == "", "every character of the Chinese strings is in the font atlas (missing: '" +
                                                first.at("missing_glyphs").get<std::string>() + "')");
    const nlohmann::json second = read_json(dir + "/second.json");
    check(second.at("ui_lang") == "zh", "the next launch remembers Chinese (settings)");
    check(second.at("help").at("welcome") == false, "and does not open the welcome again");
    check(second.at("missing_glyphs") == "", "no missing characters at 1600×1000 either");
    const nlohmann::json example = read_json(dir + "/example_zh.json");
    const std::string title = example.at("info").at("example_title_shown");
    check(title.rfind("单头注意力", 0) == 0, "the worked example's notes show in Chinese ('" + title + "')");
    const nlohmann::json english = read_json(dir + "/english.json");
    check(english.at("ui_lang") == "en", "the script switches back to English");
    check(english.at("analysis").at("open_tab") == "ablation",
          "the Analysis view keeps its open tab (Ablation) across the language switch");
    return failures ? 1 : 0;
}

}  // namespace hs::gui_check

namespace hs::gui_check {

// run_pipeline_layout_test.sh: every dumped Pipeline strip has readable number tables.
int check_pipeline(int argc, char** argv) {
    for (int a = 2; a < argc; ++a) {
        const std::string file = argv[a];
        const nlohmann::json p = read_json(file).at("pipeline");
        const nlohmann::json& cards = p.at("cards");
        check(cards.size() >= 14, file + ": the strip has its " + std::to_string(cards.size()) + " cards");
        int tables = 0, slivers = 0;
        for (const nlohmann::json& c : cards) {
            if (!c.at("numbers").get<bool>()) continue;
            ++tables;
            const float column = c.at("column_w"), widest = c.at("widest_text_w");
            const auto& r = c.at("rect");
            const float width = r[2].get<float>() - r[0].get<float>();
            if (column + 0.5f < widest || width < column) {
                ++slivers;
                check(false, file + ": card '" + c.at("title").get<std::string>() + "' is " + std::to_string(width) +
                                 " px wide with columns of " + std::to_string(column) + " for values " +
                                 std::to_string(widest) + " wide");
            }
        }
        check(slivers == 0, file + ": all " + std::to_string(tables) + " number tables keep readable columns");
        if (file.find("example") != std::string::npos)
            check(tables >= 10, file + ": a 2-token worked example shows its steps as numbers (" + std::to_string(tables) + ")");
    }
    return failures ? 1 : 0;
}

}  // namespace hs::gui_check

namespace hs::gui_check {

// run_pipeline_layout_test.sh, a model above d_model 1024: the strip shows the fused
// layout (its per-head copies are not made) and every heatmap card in view is coloured,
// not blank. Its maps are mipmapped; drawn on level 0's ±max|v| the averages of a signed
// matrix came out white. Of the map's pixels (the bottom of its card's rect, less the dark
// background beside a map narrower than its title) a coloured one has channels > 24 apart.
int check_pipeline_maps(char** argv) {
    const nlohmann::json p = read_json(argv[2]).at("pipeline");
    const hs::RgbImage shot = hs::read_png(argv[3]);
    check(!p.at("textbook_shown").get<bool>(), "above d_model 1024 the strip shows the fused layout");
    const float x0 = p.at("visible")[0], x1 = p.at("visible")[1];
    int maps = 0;
    for (const nlohmann::json& c : p.at("cards")) {
        const auto& r = c.at("rect");
        const int left = static_cast<int>(r[0].get<float>()) + 1, right = static_cast<int>(r[2].get<float>()) - 1;
        const int bottom = static_cast<int>(r[3].get<float>()) - 1;
        const int top = bottom - static_cast<int>(0.25f * (r[3].get<float>() - r[1].get<float>()));
        if (c.at("numbers").get<bool>() || left < x0 || right > x1 || right >= shot.width() || bottom >= shot.height())
            continue;
        ++maps;
        int coloured = 0, pixels = 0;
        for (int y = top; y <= bottom; ++y)
            for (int x = left; x <= right; ++x) {
                const hs::Rgb8 px = shot.at(x, y);
                const int hi = std::max({int(px.r), int(px.g), int(px.b)}), lo = std::min({int(px.r), int(px.g), int(px.b)});
                if (hi < 80) continue;  // the window's dark background beside a narrow map
                coloured += hi - lo > 24;
                ++pixels;
            }
        const double share = pixels ? double(coloured) / pixels : 0.0;
        char line[160];
        std::snprintf(line, sizeof line, "card '%s': %.0f %% of its map's pixels are coloured (at least 30 %%)",
                      c.at("title").get<std::string>().c_str(), 100.0 * share);
        check(share >= 0.30, line);
    }
    check(maps >= 3, "at least three heatmap cards in view (" + std::to_string(maps) + ")");
    return failures ? 1 : 0;
}

// run_layout_fit_test.sh: no window clips its widgets sideways.
int check_fit(int argc, char** argv) {
    for (int a = 2; a < argc; ++a) {
        const std::string file = argv[a];
        const nlohmann::json state = read_json(file);
        int windows = 0;
        for (const nlohmann::json& w : state.at("windows")) {
            ++windows;
            if (w.at("clipped").get<bool>())
                check(false, file + ": window '" + w.at("name").get<std::string>() + "' needs " +
                                 std::to_string(w.at("content_w").get<float>()) + " px but has " +
                                 std::to_string(w.at("inner_w").get<float>()));
        }
        check(windows >= 3, file + ": " + std::to_string(windows) + " windows, none clipped sideways");
        // Where the Heatmap panel shows, its map has room: at 1280×720 the Analysis view's
        // short panel gave it ~50 px before the colour-scale controls went behind a button,
        // and ~100 px while the grid above it kept half the height (now the height its
        // thumbnails need: 164 px and more).
        if (state.contains("heatmap")) {
            const nlohmann::json& area = state["heatmap"].at("area");
            const float side = std::min(area.at(0).get<float>(), area.at(1).get<float>());
            check(side >= 150.0f, file + ": the heatmap has " + std::to_string(side) + " px (want ≥ 150; colour scale in " +
                                     state["heatmap"].at("scale_controls").get<std::string>() + ")");
            // The Attention view's map, its controls over the grid beside it: at 1280×720
            // 287 px (~200 while they took three rows of its own panel).
            if (file.find("_attention.json") != std::string::npos)
                check(side >= 260.0f, file + ": the Attention view's heatmap has " + std::to_string(side) + " px (want ≥ 260)");
        }
    }
    return failures ? 1 : 0;
}

}  // namespace hs::gui_check

namespace hs::gui_check {

// The head count after each click of run_heads_buttons_test.sh: the divisors of 48 by hand
// (1, 2, 3, 4, 6, 8, 12, 16, 24, 48), never 7, 5 or 9 … between them.
int check_heads_buttons(char** argv) {
    const std::string dir = argv[2], size = argv[3];
    const int expected[] = {8,                         // as opened
                            6, 4, 3, 2, 1, 1,          // − six times: stays at 1
                            2, 3, 4, 6, 8, 12, 16, 24, 48, 48};  // + ten times: stays at 48
    for (int i = 0; i < static_cast<int>(std::size(expected)); ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "_%02d.json", i);
        const nlohmann::json state = read_json(dir + "/" + size + name);
        const int heads = state.at("heads");
        check(!state.at("heatmap").at("stale").get<bool>(), size + " step " + std::to_string(i) + ": the map is marked stale");
        check(heads == expected[i] && state.at("error") == "" && state.at("config_errors").empty(),
              size + " step " + std::to_string(i) + ": " + std::to_string(heads) + " heads (want " +
                  std::to_string(expected[i]) + ", no error)");
    }
    // `set kv_heads 5` with 48 heads: refused, the last valid trace (48 heads) stays shown.
    const nlohmann::json refused = read_json(dir + "/" + size + "_17.json");
    const nlohmann::json& errors = refused.at("config_errors");
    check(refused.at("heatmap").at("stale").get<bool>(), size + " kv_heads 5: the last valid map is not marked stale");
    check(refused.at("heads") == 48 && errors.size() == 1 &&
              errors[0].get<std::string>().find("48 query heads cannot share 5") != std::string::npos,
          size + " kv_heads 5: want one config error (48 query heads cannot share 5) and 48 heads shown, got " +
              errors.dump() + ", " + refused.at("heads").dump() + " heads");
    // The K/V heads' − from the refused 5: the next smaller divisor of 48, 4; + then 6.
    const int expected_kv[] = {4, 6};
    for (int i = 0; i < 2; ++i) {
        const nlohmann::json state = read_json(dir + "/" + size + "_" + std::to_string(18 + i) + ".json");
        check(state.at("kv_heads") == expected_kv[i] && state.at("heads") == 48 && state.at("config_errors").empty() &&
                  state.at("error") == "",
              size + " kv_heads click " + std::to_string(i + 1) + ": want " + std::to_string(expected_kv[i]) +
                  " K/V heads of 48 and no error, got " + state.at("kv_heads").dump() + " of " +
                  state.at("heads").dump() + ", errors " + state.at("config_errors").dump());
    }
    return failures ? 1 : 0;
}

// The selection and text after each step of run_keyboard_test.sh: (layer, head) by hand
// from the clicked thumbnail L1.H2 and the keys pressed; the default model has 4 layers.
int check_keyboard(char** argv) {
    const std::string dir = argv[2], size = argv[3];
    const std::string sentence = "Tom bought the small dog and it barks .";
    struct Step {
        int layer, head;
        std::string text;
        const char* what;
    };
    const Step steps[] = {
        {1, 2, sentence, "a click on thumbnail L1.H2"},
        {1, 3, sentence, "→ after the click"},
        {2, 3, sentence, "↓"},
        {1, 2, sentence, "← then ↑"},
        {0, 2, sentence, "↑ twice from layer 1: stops at layer 0"},
        {0, 2, sentence, "→ while the text box is edited moves its cursor, not the head"},
        {0, 2, sentence + " Tom barks .", "typed, then Esc: the edit stays"},
        {0, 3, sentence + " Tom barks .", "→ after Esc: the editor closed, heads move again"},
    };
    for (int i = 0; i < static_cast<int>(std::size(steps)); ++i) {
        const Step& want = steps[i];
        const nlohmann::json state = read_json(dir + "/" + size + "_" + std::to_string(i) + ".json");
        const int layer = state.at("layer"), head = state.at("head");
        const std::string text = state.at("text");
        check(layer == want.layer && head == want.head && text == want.text && state.at("error") == "",
              size + " step " + std::to_string(i) + " (" + want.what + "): L" + std::to_string(layer) + ".H" +
                  std::to_string(head) + " '" + text + "' (want L" + std::to_string(want.layer) + ".H" +
                  std::to_string(want.head) + " '" + want.text + "', no error)");
    }
    // The typed text ran: the trace's tokens end with the three typed words.
    const nlohmann::json last = read_json(dir + "/" + size + "_7.json");
    const std::vector<std::string> tokens = last.at("tokens");
    check(tokens.size() >= 3 && tokens[tokens.size() - 3] == "Tom" && tokens.back() == ".",
          size + ": the trace after Esc ends with " + last.at("tokens").dump() + " (want … Tom barks .)");
    return failures ? 1 : 0;
}

// The heatmap's token labels in a dump of run_token_labels_test.sh: each drawn label is the
// piece of its token when every token is labelled, else the word at a word start (the
// piece inside a word). stories260K's pieces and the words they form, by hand.
int check_token_labels(char** argv) {
    const std::string file = argv[2];
    const nlohmann::json state = read_json(file);
    const std::vector<std::string> pieces = {
        "<s>", " Once", " upon", " a", " time", ",", " there", " was", " a", " little", " g", "ir", "l",
        " named", " Lily", ".", " She", " li", "ked", " to", " play", " with", " her", " r", "ed", " b",
        "all", " in", " the", " p", "ar", "k", ".", "␣",
        "[U+1F600]", "[U+1F600]", "[U+1F600]", "[U+1F600]", "␣", "م", "م", "ر", "ر", "ح", "ح", "ب", "ب", "ا", "ا"};
    const std::map<int, std::string> words = {
        {0, "<s>"},    {1, "Once"},  {2, "upon"},    {3, "a"},    {4, "time,"},  {6, "there"}, {7, "was"},
        {8, "a"},      {9, "little"}, {10, "girl"},  {13, "named"}, {14, "Lily."}, {16, "She"}, {17, "liked"},
        {19, "to"},    {20, "play"}, {21, "with"},   {22, "her"}, {23, "red"},   {25, "ball"}, {27, "in"},
        {28, "the"},   {29, "park."}, {33, "[U+1F600]"}, {38, "مرحبا"}};
    const std::vector<std::string> tokens = state.at("tokens");
    check(tokens.size() == pieces.size(), file + ": " + std::to_string(tokens.size()) + " tokens (want " +
                                              std::to_string(pieces.size()) + ")");
    if (tokens.size() != pieces.size()) return 1;
    // The one character the fonts lack, named by the Input panel; the Arabic letters draw.
    check(state.at("undrawable") == nlohmann::json::array({"U+1F600"}),
          file + ": undrawable " + state.at("undrawable").dump() + " (want [\"U+1F600\"])");
    const nlohmann::json& heatmap = state.at("heatmap");
    const int step = heatmap.at("label_step");
    // The axis titles in the map's corner, in the interface's language (short where narrow).
    const std::vector<std::string> titles = heatmap.at("axis_titles");
    const bool zh = state.at("ui_lang") == "zh";
    const std::string queries = zh ? "查询 ↓" : "queries ↓", keys = zh ? "键 →" : "keys →";
    check((titles[0] == queries && titles[1] == keys) || (titles[0] == "Q ↓" && titles[1] == "K →"),
          file + ": axis titles '" + titles[0] + "', '" + titles[1] + "' (want '" + queries + "', '" + keys + "')");
    for (const char* axis : {"row_labels", "col_labels"}) {
        const nlohmann::json& drawn = heatmap.at(axis);
        check(drawn.size() >= 5, file + ": only " + std::to_string(drawn.size()) + " " + axis);
        for (const nlohmann::json& label : drawn) {
            const int i = label.at(0);
            const std::string text = label.at(1);
            const auto word = words.find(i);
            const std::string want = step > 1 && word != words.end() ? word->second : pieces.at(static_cast<std::size_t>(i));
            check(text == want, file + ": " + axis + " token " + std::to_string(i) + " reads '" + text + "' (want '" +
                                    want + "', labels every " + std::to_string(step) + ")");
        }
    }
    return failures ? 1 : 0;
}

// run_pipeline_values_test.sh: the Pipeline's heatmap cards in a dump of the default model
// (layer 0, head 3, 10 tokens), its screenshot, and a dump after a click on card 9 (+ mask).
int check_pipeline_values(char** argv) {
    const auto rgb_distance = [](hs::Rgb8 a, hs::Rgb8 b) {
        return std::max({std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)});
    };
    const nlohmann::json p = read_json(argv[2]).at("pipeline");
    const hs::RgbImage shot = hs::read_png(argv[3]);
    // The textbook strip's cards 7–10: Q_h K_hᵀ, ÷√d_k, + mask, softmax (titles translated).
    const nlohmann::json& cards = p.at("cards");
    if (cards.size() < 11) {
        check(false, "the strip has " + std::to_string(cards.size()) + " cards (want 15)");
        return 1;
    }
    const auto scale_of = [&](int card) -> std::pair<float, float> {
        return {cards[card].at("scale")[0].get<float>(), cards[card].at("scale")[1].get<float>()};
    };
    const int raw = 7, scaled = 8, masked = 9, softmax = 10;
    check(cards[scaled].at("title") == "÷√d_k (×0.250)", "card 8 is ÷√d_k with d_k 16 (" + cards[scaled].at("title").dump() + ")");
    const auto raw_scale = scale_of(raw);
    check(raw_scale.second > 1.0f && raw_scale.first == -raw_scale.second,
          "Q_h K_hᵀ's colour bar is symmetric and nonzero (" + std::to_string(raw_scale.first) + ", " +
              std::to_string(raw_scale.second) + ")");
    check(scale_of(scaled) == raw_scale, "÷√d_k shares Q_h K_hᵀ's colour scale");
    check(scale_of(masked) == raw_scale, "+ mask shares Q_h K_hᵀ's colour scale");
    if (cards[softmax].at("map")[2].get<float>() > 0.0f)  // drawn (in view)
        check(scale_of(softmax) == std::pair(0.0f, 1.0f), "softmax's colour bar spans 0 … 1");
    // The masked card's top-right cell (query 0, key 9: masked under the causal mask) is the
    // −∞ grey (96, 96, 104); its bottom-left (query 9, key 0) is not.
    const auto& m = cards[masked].at("map");
    const float x0 = m[0], y0 = m[1], x1 = m[2], y1 = m[3];
    const float cw = (x1 - x0) / 10.0f, ch = (y1 - y0) / 10.0f;
    const hs::Rgb8 top_right = shot.at(static_cast<int>(x1 - cw * 0.5f), static_cast<int>(y0 + ch * 0.5f));
    const hs::Rgb8 bottom_left = shot.at(static_cast<int>(x0 + cw * 0.5f), static_cast<int>(y1 - ch * 0.5f));
    check(rgb_distance(top_right, hs::Rgb8{96, 96, 104}) <= 3, "the masked cell (0, 9) is drawn −∞ grey");
    check(rgb_distance(bottom_left, hs::Rgb8{96, 96, 104}) > 20, "the seen cell (9, 0) is not grey");
    // Opened: the + mask card as numbers, its rows and columns the tokens.
    const nlohmann::json open = read_json(argv[4]).at("pipeline").at("open_card");
    const std::vector<std::string> rows = open.at("rows"), cols = open.at("cols");
    const std::vector<std::string> want = {"0 <bos>", "1 Tom", "2 bought", "3 the", "4 small", "5 dog", "6 and", "7 it"};
    check(open.at("title") == cards[masked].at("title"), "a click on card 9 opens it (" + open.at("title").dump() + ")");
    check(rows == want && cols == want, "the opened card's rows and columns are the tokens: " + open.at("rows").dump());
    // The opened card and its table are windows of the layout dump, neither clipped sideways
    // (the table scrolls instead), the card within the screen.
    int card_windows = 0;
    const nlohmann::json opened_windows = read_json(argv[4]).at("windows");
    float screen_w = 0, screen_h = 0;  // the panels tile the screen: their far corner is its size
    for (const nlohmann::json& w : opened_windows)
        if (w.at("name").get<std::string>().find("###pipeline_card") == std::string::npos) {
            screen_w = std::max(screen_w, w.at("rect")[2].get<float>());
            screen_h = std::max(screen_h, w.at("rect")[3].get<float>());
        }
    for (const nlohmann::json& w : opened_windows) {
        const std::string name = w.at("name");
        if (name.find("###pipeline_card") == std::string::npos) continue;
        ++card_windows;
        check(!w.at("clipped").get<bool>(), "the opened card's window '" + name + "' is not clipped");
        const std::vector<float> r = w.at("rect");
        check(r[0] >= 0 && r[1] >= 0 && r[2] <= screen_w && r[3] <= screen_h,
              "the opened card's window '" + name + "' is on the screen");
    }
    check(card_windows == 2, "the opened card and its number table are in the layout dump (" +
                                 std::to_string(card_windows) + " windows)");
    return failures ? 1 : 0;
}

}  // namespace hs::gui_check
