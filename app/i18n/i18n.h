#pragma once
// The interface language: English (the source strings) or Simplified Chinese. Every
// label, tooltip and message the window shows goes through tr(); the Chinese strings
// are in app/i18n/zh_cn.cpp, keyed by the English text. A string without a translation
// shows in English (tests/gui/i18n_test.cpp fails when one of the app's tr() strings
// has none).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hs {

enum class UiLang { English, Chinese };

// "en" → English; "zh", "zh-CN", "zh_CN", "中文" → Chinese; anything else throws hs::Error
// naming the choices.
UiLang parse_ui_lang(const std::string& name);
std::string to_string(UiLang lang);  // "en" | "zh"

void set_ui_lang(UiLang lang);  // UI thread only
UiLang ui_lang();

// english in the interface language. "Label##id" keeps its ImGui id ("##id") and
// translates the part before it. The pointer stays valid for the whole run.
const char* tr(const char* english);
std::string tr(const std::string& english);

// The Chinese entry for `english` (without an "##id"), or "" when the table has none.
std::string_view zh_cn_lookup(std::string_view english);

// Text that comes in both languages (a worked example's notes): `chinese` when the
// interface is Chinese and it is not empty, else `english`.
const std::string& in_ui_lang(const std::string& english, const std::string& chinese);

// Every (English, Chinese) pair of the table (tests; the font atlas notes the Chinese).
const std::vector<std::pair<std::string_view, std::string_view>>& zh_cn_table();

}  // namespace hs
