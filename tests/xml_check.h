#pragma once
// A small XML well-formedness check for the SVG exports (tests only; no XML library).
#include <string>
#include <vector>

namespace hs::test {

// Minimal XML well-formedness: declaration first, every start tag closed in order, no
// raw '<' or '&' outside tags and entities. Returns "" or what is wrong.
inline std::string xml_problem(const std::string& doc) {
    if (doc.rfind("<?xml", 0) != 0) return "no XML declaration";
    std::vector<std::string> open;
    const std::size_t declaration_end = doc.find("?>");
    if (declaration_end == std::string::npos) return "unterminated XML declaration";
    std::size_t i = declaration_end + 2;
    while (i < doc.size()) {
        if (doc[i] == '&') {
            const std::size_t semi = doc.find(';', i);
            if (semi == std::string::npos) return "unterminated entity at " + std::to_string(i);
            const std::string entity = doc.substr(i, semi - i + 1);
            if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;")
                return "bad entity at " + std::to_string(i);
            i = semi + 1;
            continue;
        }
        if (doc[i] != '<') {
            ++i;
            continue;
        }
        const std::size_t end = doc.find('>', i);
        if (end == std::string::npos) return "unterminated tag";
        std::string tag = doc.substr(i + 1, end - i - 1);
        if (tag.find('<') != std::string::npos) return "'<' inside a tag at " + std::to_string(i);
        i = end + 1;
        if (tag.front() == '/') {
            if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
            open.pop_back();
        } else if (tag.back() != '/') {
            open.push_back(tag.substr(0, tag.find_first_of(" \n")));
        }
    }
    return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

}  // namespace hs::test
