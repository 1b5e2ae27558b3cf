// core/ is layered (docs/ARCHITECTURE.md, "Layers"): a file includes only its own layer and
// the layers below, never one above (readers reach the source factory through
// core/open_source.cpp, the one file at the top), and nothing of the frontends.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// Bottom to top. Folders by name; core's top-level files by their stem.
const std::map<std::string, int>& layer_ranks() {
    static const std::map<std::string, int> ranks = {
        {"tensor", 0},   {"error", 0},                                   // types and the one exception
        {"kernels", 1},                                                   // the seam for speed
        {"rng", 2},                                                       // seeded fills (kernels' counter fills)
        {"model", 3},                                                     // the one runtime
        {"io", 4},       {"assets", 4},                                  // our own files; where they are installed
        {"tokenize", 5},                                                  // text to ids (reads vocab files)
        {"image", 6},                                                     // pictures of traces
        {"formats", 7},  {"corpus", 7},                                   // other people's files; corpora
        {"source", 8},   {"pretrained_source", 8}, {"worked_example", 8},  // traces from models
        {"generate", 8}, {"continuation", 8},      {"about", 8},
        {"analysis", 9},                                                  // what heads do
        {"train", 10},                                                    // training the runtime
        {"open_source", 11},                                              // every reader: the top
    };
    return ranks;
}

fs::path core_dir() { return fs::path(HEADSCOPE_ASSETS_DIR).parent_path() / "core"; }

// The layer of a path under core/: its folder, or a top-level file's stem.
std::string layer_of(const fs::path& relative) {
    const auto first = relative.begin();
    return std::next(first) == relative.end() ? relative.stem().string() : first->string();
}

TEST(IncludeLayers, NoCoreFileIncludesALayerAboveItsOwnOrAFrontend) {
    std::vector<std::string> problems;
    int files = 0;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(core_dir())) {
        const std::string ext = e.path().extension().string();
        if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".inc")) continue;
        ++files;
        const fs::path rel = fs::relative(e.path(), core_dir());
        const std::string from = layer_of(rel);
        const auto own = layer_ranks().find(from);
        if (own == layer_ranks().end()) {
            problems.push_back(rel.string() + ": layer '" + from + "' is not in the table of layers");
            continue;
        }
        std::ifstream in(e.path());
        std::string line;
        while (std::getline(in, line)) {
            if (!line.starts_with("#include")) continue;
            for (const char* frontend : {"imgui", "GLFW", "GL/", "glad", "\"app/", "\"cli/"})
                if (line.find(frontend) != std::string::npos)
                    problems.push_back(rel.string() + " includes a frontend: " + line);
            const std::size_t at = line.find("\"core/");
            if (at == std::string::npos) continue;
            const std::string target = line.substr(at + 6, line.find('"', at + 6) - at - 6);
            const std::string to = layer_of(fs::path(target));
            const auto theirs = layer_ranks().find(to);
            if (theirs == layer_ranks().end())
                problems.push_back(rel.string() + " includes core/" + target + " of an unknown layer");
            else if (theirs->second > own->second)
                problems.push_back(rel.string() + " (" + from + ") climbs to core/" + target + " (" + to + ")");
        }
    }
    EXPECT_GT(files, 100);  // the walk found core/
    for (const std::string& p : problems) ADD_FAILURE() << p;
}

}  // namespace
