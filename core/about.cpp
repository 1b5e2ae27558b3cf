#include "core/about.h"

#include <png.h>

#include <Eigen/Core>
#include <hwy/highway.h>
#include <nlohmann/json.hpp>

#include "core/image/font.h"

#ifdef HEADSCOPE_HAVE_OPENBLAS
extern "C" char* openblas_get_config(void);
#endif

namespace hs {
namespace {

std::string dotted(int major, int minor, int patch) {
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace

std::string headscope_version() { return HEADSCOPE_VERSION; }
std::string headscope_revision() { return HEADSCOPE_GIT_REVISION; }

std::vector<Component> core_components() {
    std::vector<Component> out{
        {"Eigen", dotted(EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION), "MPL-2.0",
         "matrices and the reference attention"},
        {"nlohmann/json", dotted(NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH),
         "MIT", "configs, traces, settings"},
        {"libpng", png_get_libpng_ver(nullptr), "libpng (zlib-like)", "PNG export"},
        {"Highway", dotted(HWY_MAJOR, HWY_MINOR, HWY_PATCH), "Apache-2.0 or BSD-3-Clause",
         "SIMD kernels chosen at run time"},
        {"stb_truetype, stb_image", "", "MIT or public domain", "text in exported figures, PNG reading"},
        {"SentencePiece", "", "Apache-2.0", "tokenizer.model files"},
    };
#ifdef HEADSCOPE_HAVE_OPENBLAS
    out.push_back({"OpenBLAS", openblas_get_config(), "BSD-3-Clause", "matrix products behind Eigen"});
#endif
    for (const std::string& path : Font::system_default().loaded_paths()) {
        const bool wqy = path.find("wqy") != std::string::npos, noto = path.find("Noto") != std::string::npos;
        const bool dejavu = path.find("DejaVu") != std::string::npos;
        const std::string licence = wqy      ? "Apache-2.0 or GPL-3.0 with font exception"
                                    : noto   ? "SIL Open Font License 1.1"
                                    : dejavu ? "Bitstream Vera licence (free)"
                                             : "see the font's package";
        out.push_back({"font " + path.substr(path.find_last_of('/') + 1), "", licence, "figure text"});
    }
    return out;
}

}  // namespace hs
