// headscope save MODEL DIR: write a model directory (config.json + model.safetensors).
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/open_source.h"
#include "core/error.h"
#include "core/io/model_dir.h"

namespace hs {

int cmd_save(int argc, char** argv) {
    const Args args(argc, argv, 2, {}, {"force"});
    args.expect_at_most(2);
    const auto source = open_source(args.positional(0, "MODEL"));
    const std::string dir = args.positional(1, "output directory DIR");
    check_can_save(*source, dir, args.flag("force"));
    save_model_dir(*source->model(), dir);
    std::printf("wrote %s (config.json, model.safetensors, %lld parameters)\n", dir.c_str(),
                source->parameter_count());
    return 0;
}

}  // namespace hs
