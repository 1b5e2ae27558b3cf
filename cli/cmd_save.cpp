// headscope save MODEL DIR: write a model directory (config.json + model.safetensors).
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/io/model_dir.h"

namespace hs {

int cmd_save(int argc, char** argv) {
    const Args args(argc, argv, 2, {}, {});
    args.expect_at_most(2);
    const auto source = open_source(args.positional(0, "MODEL"));
    const std::string dir = args.positional(1, "output directory DIR");
    if (!source->model()) throw Error("only playground models and model directories can be saved");
    // A saved directory reopens with the playground tokenizer; a real checkpoint's own
    // tokenizer would be lost and its ids would silently change meaning.
    if (source->tokenizer())
        throw Error(args.positional(0, "MODEL") + " is a real checkpoint (" + source->config().family +
                    ") with its own tokenizer, which save cannot write; copy its files instead");
    save_model_dir(*source->model(), dir);
    std::printf("wrote %s (config.json, model.safetensors, %lld parameters)\n", dir.c_str(),
                source->parameter_count());
    return 0;
}

}  // namespace hs
