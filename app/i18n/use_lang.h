#pragma once
// Switching the window's language: tr() answers in it from the next call, the settings
// remember it, and the Chinese strings' characters join the font atlas (no "?" glyphs).
#include "app/context.h"
#include "app/i18n/i18n.h"

namespace hs {

void use_ui_lang(AppContext& ctx, UiLang lang);

}  // namespace hs
