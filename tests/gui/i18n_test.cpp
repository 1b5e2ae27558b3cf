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
#include "core/error.h"

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

}  // namespace
}  // namespace hs
