// headscope save MODEL DIR: write a model directory (config.json + model.safetensors).
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/error.h"
#include "core/io/model_dir.h"

namespace hs {

int cmd_save(int argc, char** argv) {
    const Args args(argc, argv, 2, {}, {"force"});
    args.expect_at_most(2);
    const auto source = open_source(args.positional(0, "MODEL"));
    const std::string dir = args.positional(1, "output directory DIR");
    refuse_to_replace(dir, args.flag("force"));
    if (!source->model()) throw Error("only playground models and model directories can be saved");
    // A saved directory reopens with the playground tokenizer: a real checkpoint's own
    // tokenizer or a trained model's task tokens would be lost, and its ids would
    // silently change meaning.
    if (const std::string lost = source->lost_by_saving(); !lost.empty())
        throw Error(args.positional(0, "MODEL") + " cannot be saved without losing " + lost +
                    ": its copy would read text differently; copy its files instead");
    save_model_dir(*source->model(), dir);
    std::printf("wrote %s (config.json, model.safetensors, %lld parameters)\n", dir.c_str(),
                source->parameter_count());
    return 0;
}

}  // namespace hs
