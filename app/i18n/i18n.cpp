#include "app/i18n/i18n.h"

#include <memory>
#include <unordered_map>

#include "core/error.h"

namespace hs {
namespace {

UiLang g_lang = UiLang::English;

// English → Chinese, built once from the table.
const std::unordered_map<std::string_view, std::string_view>& zh_index() {
    static const auto* index = [] {
        auto* m = new std::unordered_map<std::string_view, std::string_view>();
        for (const auto& [en, zh] : zh_cn_table()) m->emplace(en, zh);
        return m;
    }();
    return *index;
}

// Translated strings by their English key (with any "##id"), so tr() can return a
// pointer that stays valid.
std::unordered_map<std::string, std::unique_ptr<std::string>>& cache() {
    static std::unordered_map<std::string, std::unique_ptr<std::string>> c;
    return c;
}

}  // namespace

UiLang parse_ui_lang(const std::string& name) {
    if (name == "en" || name == "en-US" || name == "English") return UiLang::English;
    if (name == "zh" || name == "zh-CN" || name == "zh_CN" || name == "中文") return UiLang::Chinese;
    throw Error("the interface language must be en (English) or zh (简体中文), got '" + name + "'");
}

std::string to_string(UiLang lang) { return lang == UiLang::Chinese ? "zh" : "en"; }

void set_ui_lang(UiLang lang) { g_lang = lang; }
UiLang ui_lang() { return g_lang; }

const char* tr(const char* english) {
    if (g_lang == UiLang::English || !english) return english;
    auto& c = cache();
    if (const auto it = c.find(english); it != c.end()) return it->second->c_str();
    const std::string_view all(english);
    const std::size_t id = all.find("##");
    const std::string_view visible = all.substr(0, id);
    const auto& index = zh_index();
    const auto hit = index.find(visible);
    std::string out = hit == index.end() ? std::string(visible) : std::string(hit->second);
    if (id != std::string_view::npos) out += all.substr(id);
    return c.emplace(english, std::make_unique<std::string>(std::move(out))).first->second->c_str();
}

std::string tr(const std::string& english) { return tr(english.c_str()); }

const std::string& in_ui_lang(const std::string& english, const std::string& chinese) {
    return g_lang == UiLang::Chinese && !chinese.empty() ? chinese : english;
}

std::string_view zh_cn_lookup(std::string_view english) {
    const auto& index = zh_index();
    const auto hit = index.find(english);
    return hit == index.end() ? std::string_view() : hit->second;
}

}  // namespace hs
