// 简体中文 for the interface: English source string → Chinese. Entries are grouped by the
// part of the window they belong to (one .inc file per group, each line
// {"English", "中文"},). Keep printf specifiers (%d, %s, %.3g, …) in the same order, and
// keep the terms of the reference articles: 注意力 (attention), 头 (head), 查询 / 键 / 值
// (query / key / value), 掩码 (mask), 词元 (token), 层 (layer), 热力图 (heatmap).
#include "app/i18n/i18n.h"

namespace hs {

const std::vector<std::pair<std::string_view, std::string_view>>& zh_cn_table() {
    static const std::vector<std::pair<std::string_view, std::string_view>> table{
#include "app/i18n/zh_cn_attention.inc"
#include "app/i18n/zh_cn_analysis.inc"
#include "app/i18n/zh_cn_samples.inc"
    };
    return table;
}

}  // namespace hs
