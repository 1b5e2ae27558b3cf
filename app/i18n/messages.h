#pragma once
// Messages that come from core (errors, model kinds) or are built at run time, in the
// interface language. core speaks English and knows nothing of the interface; the app
// translates what it shows through message templates: an English printf format such as
// "d_model %d is not divisible by %d heads" matches the message, its arguments are
// captured and put into the Chinese format in the same order (app/i18n/zh_cn_messages.inc;
// the errors of broken model files in zh_cn_file_errors.inc).
// A %s argument is translated when the table knows it word for word ("the %s has no
// tokens" with "decoder text"); one after ": " or "(" holds another message and goes
// through the templates too ("training stopped: %s"). Problems joined by "; " are
// translated one by one. A message no template matches shows in English.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hs {

// `english` in the interface language: an exact entry of the tr() table, else the first
// template that matches the whole message, else `english` unchanged. UI thread only.
std::string tr_message(const std::string& english);

// Every (English format, Chinese format) template (tests).
const std::vector<std::pair<std::string_view, std::string_view>>& zh_cn_message_templates();

}  // namespace hs
