#include "app/i18n/use_lang.h"

#include "app/i18n/messages.h"

namespace hs {

void use_ui_lang(AppContext& ctx, UiLang lang) {
    set_ui_lang(lang);
    ctx.state.ui_lang = to_string(lang);
    ctx.fonts.note_text("简体中文");  // the Help menu names the language in itself
    if (lang == UiLang::Chinese) {
        for (const auto& [english, chinese] : zh_cn_table()) ctx.fonts.note_text(std::string(chinese));
        for (const auto& [english, chinese] : zh_cn_message_templates()) ctx.fonts.note_text(std::string(chinese));
    }
}

}  // namespace hs
