// The interface language (app/i18n): every string the app passes to tr() has a Chinese
// entry with the same printf specifiers, no entry is listed twice, and tr() keeps ImGui ids.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "app/i18n/i18n.h"
#include "app/i18n/messages.h"
#include "core/about.h"
#include "core/error.h"
#include "core/io/samples.h"
#include "core/model/config.h"
#include "core/model/model.h"
#include "core/source.h"

namespace hs {
namespace {

// The C escapes the app's literals use: \" \\ \n \t.
std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        const char c = s[++i];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    return out;
}

// Every tr("…") literal (adjacent literals joined) in app/**/*.cpp, by file.
std::map<std::string, std::string> tr_literals() {
    std::map<std::string, std::string> found;  // key → first file
    const std::regex call(R"re(\btr\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\))re");
    const std::regex piece(R"re("((?:[^"\\]|\\.)*)")re");
    for (const auto& entry : std::filesystem::recursive_directory_iterator(HEADSCOPE_SOURCE_DIR "/app")) {
        if (entry.path().extension() != ".cpp") continue;
        std::ifstream in(entry.path());
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
            std::string joined;
            const std::string literals = (*it)[1];
            for (std::sregex_iterator p(literals.begin(), literals.end(), piece); p != end; ++p) joined += unescape((*p)[1]);
            const std::string key = joined.substr(0, joined.find("##"));
            if (!key.empty()) found.emplace(key, entry.path().filename().string());
        }
    }
    return found;
}

// The printf conversions of a format, in order ("%d", "%.3g", …; "%%" skipped).
std::vector<std::string> specifiers(std::string_view s) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') continue;
        if (i + 1 < s.size() && s[i + 1] == '%') {
            ++i;
            continue;
        }
        std::size_t j = i + 1;
        while (j < s.size() && std::string_view("-+ #0123456789.lzh").find(s[j]) != std::string_view::npos) ++j;
        if (j < s.size()) out.emplace_back(s.substr(i, j - i + 1));
        i = j;
    }
    return out;
}

TEST(I18n, EveryTrStringOfTheAppHasAChineseEntry) {
    std::set<std::string_view> keys;
    for (const auto& [en, zh] : zh_cn_table()) keys.insert(en);
    const auto literals = tr_literals();
    ASSERT_GT(literals.size(), 300u) << "the scan found too few tr() calls";
    int missing = 0;
    for (const auto& [key, file] : literals)
        if (!keys.count(key)) {
            ADD_FAILURE() << file << ": tr(\"" << key << "\") has no Chinese entry in app/i18n/*.inc";
            ++missing;
        }
    EXPECT_EQ(missing, 0);
}

TEST(I18n, EntriesAreUniqueNonEmptyAndKeepTheirSpecifiers) {
    std::set<std::string_view> seen;
    for (const auto& [en, zh] : zh_cn_table()) {
        EXPECT_TRUE(seen.insert(en).second) << "\"" << en << "\" is listed twice";
        EXPECT_FALSE(zh.empty()) << en;
        EXPECT_EQ(specifiers(en), specifiers(zh)) << en;
    }
}

TEST(I18n, TrTranslatesTheVisiblePartAndKeepsTheId) {
    set_ui_lang(UiLang::Chinese);
    const std::string en = std::string(zh_cn_table().front().first);
    const std::string zh = std::string(zh_cn_table().front().second);
    EXPECT_EQ(std::string(tr(en.c_str())), zh);
    EXPECT_EQ(std::string(tr((en + "##x").c_str())), zh + "##x");
    EXPECT_EQ(std::string(tr("no such string 123")), "no such string 123");
    set_ui_lang(UiLang::English);
    EXPECT_EQ(std::string(tr(en.c_str())), en);
}

TEST(I18n, LanguageNames) {
    EXPECT_EQ(parse_ui_lang("zh-CN"), UiLang::Chinese);
    EXPECT_EQ(parse_ui_lang("en"), UiLang::English);
    EXPECT_EQ(to_string(UiLang::Chinese), "zh");
    EXPECT_THROW(parse_ui_lang("fr"), Error);
}

// Runs `english` through tr_message in Chinese.
std::string in_chinese(const std::string& english) {
    set_ui_lang(UiLang::Chinese);
    std::string out = tr_message(english);
    set_ui_lang(UiLang::English);
    return out;
}

bool has_cjk(const std::string& s) {
    for (std::size_t i = 0; i + 2 < s.size(); ++i)  // U+4E00 … U+9FFF: E4 B8 80 … E9 BF BF
        if (static_cast<unsigned char>(s[i]) >= 0xE4 && static_cast<unsigned char>(s[i]) <= 0xE9) return true;
    return false;
}

TEST(I18nMessages, TemplatesAreUniqueKeepTheirSpecifiersAndAreNotPlainEntries) {
    std::set<std::string_view> plain, seen;
    for (const auto& [en, zh] : zh_cn_table()) plain.insert(en);
    for (const auto& [en, zh] : zh_cn_message_templates()) {
        EXPECT_TRUE(seen.insert(en).second) << "\"" << en << "\" is listed twice";
        EXPECT_FALSE(plain.count(en)) << "\"" << en << "\" is also a plain tr() entry";
        EXPECT_EQ(specifiers(en), specifiers(zh)) << en;
        // Chinese, or (only the role reasons "%s %f ≥ %f", "%s %f ≤ %f") the English format
        // itself: a template that translates just its argument, the metric's name.
        const bool argument_only = en == "%s %f ≥ %f" || en == "%s %f ≤ %f";
        EXPECT_TRUE(argument_only ? zh == en : has_cjk(std::string(zh))) << en;
    }
}

TEST(I18nMessages, CoreMessagesTranslateWithTheirNumbers) {
    // Hand-written Chinese for messages core builds.
    ModelConfig c;
    c.d_model = 50;
    c.heads = 8;
    ASSERT_EQ(validate(c), std::vector<std::string>{"d_model 50 is not divisible by 8 heads"});
    EXPECT_EQ(in_chinese(validate(c)[0]), "d_model 50 不能被 8 个头整除");
    // A %s argument is translated in turn ("decoder text" → 解码器文本).
    EXPECT_EQ(in_chinese("the decoder text has 40 tokens; this model handles at most 16"),
              "解码器文本有 40 个词元；这个模型最多处理 16 个");
    // A path with spaces and quotes stays as it is.
    EXPECT_EQ(in_chinese("'/tmp/a b/c' does not exist (expected a model directory, a worked-example .json or a "
                         "playground spec like random:d_model=64,heads=4,layers=2)"),
              "“/tmp/a b/c”不存在（需要模型目录、算例 .json，或形如 random:d_model=64,heads=4,layers=2 的试验场规格）");
    EXPECT_EQ(in_chinese("llama model"), "llama 模型");
    // A role's reason names its metric in Chinese.
    EXPECT_EQ(in_chinese("prev_token 0.62 ≥ 0.40"), "前一词元 0.62 ≥ 0.40");
    // A path is not a message: "Opened /m/my model" keeps the path as it is …
    EXPECT_EQ(in_chinese("Opened /m/my model"), "已打开 /m/my model");
    // … while what follows ": " is one, translated in turn.
    EXPECT_EQ(in_chinese("training stopped: d_model 50 is not divisible by 8 heads"),
              "训练已停止：d_model 50 不能被 8 个头整除");
    // ensure_valid's problems joined by "; ", each translated.
    ModelConfig two;
    two.d_model = 50, two.heads = 8, two.layers = 0;
    try {
        ensure_valid(two);
        ADD_FAILURE() << "two problems passed";
    } catch (const Error& e) {
        const std::string en = e.what();  // "…; layers 0 must be between 1 and MAX"
        const std::string max = en.substr(en.rfind(' ') + 1);
        EXPECT_EQ(in_chinese(en), "d_model 50 不能被 8 个头整除；层数 0 必须在 1 到 " + max + " 之间");
    }
    // No template: unchanged; English: unchanged.
    EXPECT_EQ(in_chinese("safetensors header is 12 bytes"), "safetensors header is 12 bytes");
    EXPECT_EQ(tr_message("d_model 50 is not divisible by 8 heads"), "d_model 50 is not divisible by 8 heads");
    // Long arguments: a 900-byte path is translated; a message beyond 1024 bytes is left alone.
    const std::string path(900, 'p'), longer(5000, 'p');
    EXPECT_EQ(in_chinese("cannot write " + path + ": No space left on device"), "无法写入 " + path + "：No space left on device");
    EXPECT_EQ(in_chinese("cannot write " + longer + ": x"), "cannot write " + longer + ": x");
}

TEST(I18nMessages, EveryPlaygroundCheckAndOpenErrorHasATemplate) {
    // One bad config per check of validate() (core/model/config.cpp).
    std::vector<ModelConfig> bad(15);
    bad[0].d_model = 0;
    bad[1].heads = 0;
    bad[2].d_model = 4, bad[2].heads = 8;
    bad[3].d_model = 50, bad[3].heads = 8;
    bad[4].head_dim = -1;
    bad[5].kv_heads = -1;
    bad[6].heads = 8, bad[6].kv_heads = 3;
    bad[7].d_model = 24, bad[7].heads = 8, bad[7].pe = PosEncoding::Rotary;
    bad[8].pe = PosEncoding::Rotary, bad[8].rope_theta = 1.0f;
    bad[9].type_vocab = -1;
    bad[10].layers = 0;
    bad[11].d_ff = 0;
    bad[12].vocab = 1;
    bad[13].max_len = 0, bad[13].norm_eps = 0.0f;
    bad[14].d_model = 8192, bad[14].layers = 64, bad[14].d_ff = 32768;
    std::set<std::string> messages;
    for (const ModelConfig& c : bad) {
        const auto problems = validate(c);
        EXPECT_FALSE(problems.empty());
        messages.insert(problems.begin(), problems.end());
    }
    EXPECT_GE(messages.size(), 16u);
    for (const char* arg : {"", "/no/such/model", HEADSCOPE_SOURCE_DIR "/README.md"}) {
        try {
            open_source(arg);
            ADD_FAILURE() << arg << " opened";
        } catch (const Error& e) {
            messages.insert(e.what());
        }
    }
    for (const std::string& m : messages) {
        const std::string zh = in_chinese(m);
        EXPECT_TRUE(zh != m && has_cjk(zh)) << "no Chinese template matches: " << m;
    }
}

TEST(I18nMessages, AboutSaysInChineseWhatEachComponentIsFor) {
    for (const Component& c : core_components())
        EXPECT_TRUE(has_cjk(in_chinese(c.role))) << c.name << ": " << c.role;
}

TEST(I18nMessages, EveryEnglishSampleTitleHasAnEntry) {
    std::set<std::string_view> keys;
    for (const auto& [en, zh] : zh_cn_table()) keys.insert(en);
    const std::vector<Sample> samples = load_samples(HEADSCOPE_SOURCE_DIR "/assets/samples.json");
    ASSERT_GT(samples.size(), 20u);
    for (const Sample& s : samples)
        EXPECT_TRUE(has_cjk(s.title) || keys.count(s.title)) << "sample title \"" << s.title << "\"";
}

}  // namespace
}  // namespace hs
