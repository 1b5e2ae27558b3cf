#include "cli/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/about.h"
#include "core/error.h"

namespace hs {

namespace {

struct Command {
    const char* name;
    int (*run)(int, char**);
    const char* summary;
};

constexpr Command kCommands[] = {
    {"forward", cmd_forward, "run MODEL on a text; --json FILE writes the trace"},
    {"export", cmd_export, "heatmap PNG/SVG/CSV/JSON of one head (--layer --head) or --grid"},
    {"inspect", cmd_inspect, "config, tensors and parameter count of MODEL"},
    {"bench", cmd_bench, "forward-pass timing of MODEL on --tokens N"},
    {"save", cmd_save, "write a playground MODEL as a model directory DIR"},
    {"generate", cmd_generate, "greedy continuation of --text by a pretrained language MODEL"},
    {"ablate", cmd_ablate, "switch heads off (--head L.H) and show what changes; --rank"},
    {"analyze", cmd_analyze, "per-head metrics, role labels and redundant pairs (--csv, --json, --corpus)"},
    {"corpus", cmd_corpus, "sentences of the bilingual grammar with gold relations (--json: a relations file)"},
    {"train", cmd_train, "train a playground decoder on a task (copy, reverse, sort, induction) or a text file"},
};

constexpr const char* kUsage = R"(usage: headscope [COMMAND] ...

With no command, headscope opens the window.

MODEL is one of
  default      the model HeadScope trains itself on English and Chinese (learned heads:
               agreement, coreference, induction, …; docs/DEFAULT_MODEL.md)
  random:d_model=512,heads=8,layers=2,seed=1,mask=causal,arch=decoder,pe=sinusoidal
      a playground model with seeded random weights, untrained (keys: d_model heads layers d_ff
      vocab max_len seed mask=none|causal arch=encoder|decoder|encoder-decoder
      pe=sinusoidal|learned|rope|none rope=rotate-half|interleaved theta=10000
      norm=post-ln|pre-ln|rmsnorm|post-rmsnorm act=relu|gelu|gelu-tanh|swiglu
      kv_heads=K bias=0|1 lm_head=tied|separate|none)
      a Llama block: random:d_model=256,heads=8,kv_heads=2,layers=4,arch=decoder,
                     pe=rope,norm=rmsnorm,act=swiglu,bias=0
  DIR          a model directory (config.json + model.safetensors)
  FILE.json    a worked example (assets/examples/)
  FILE.bin     a llama2.c checkpoint (tokenizer.bin or tok*.bin beside it)

commands:
  headscope forward MODEL --text "..." [--json out.json] [--save DIR] [--scores]
                    [--detail-layer L] [--quiet] [--map-budget MiB]   (maps kept; default 256)
                    [--tap NAME,...]   (named intermediates, '*' matches any run: layers.*.attn_out)
  headscope forward MODEL --list-taps                 (every name --tap can keep)
  headscope export  MODEL --text "..." --layer L --head H --png out.png [--svg f] [--csv f] [--json f]
  headscope export  MODEL --text "..." --grid --png grid.png [--svg grid.svg]
                    [--decoder] [--cross] [--colormap viridis|magma|inferno|greys|redblue]
                    [--gamma G] [--log] [--auto-range] [--map-budget MiB]
                    [--scale 1|2|4] [--no-values]   (figure size; values printed in cells that fit)
  headscope inspect MODEL
  headscope bench   MODEL --tokens N [--repeat R] [--attention-only]
  headscope save    MODEL DIR
  headscope train   TASK [--spec SPEC] [--steps N] [--batch B] [--lr X] [--warmup W] [--seed S]
                    [--every K] [--save DIR] [--log CSV] [--snapshots DIR]   (TASK: copy reverse sort induction grammar)
  headscope train   grammar [--window N] [--induction P] …   (the bilingual grammar; P % induction examples)
  headscope train   --text-file F [--level char|word] [--window N] [--spec SPEC] …   (a text: vocab from --spec)
  headscope train   TASK --sweep heads=1,2,4,8,16|d_model=… [--sweep-csv F] [--sweep-png F] …
  headscope train   --resume DIR --steps N [--every K] [--save DIR] [--log CSV]   (N: steps in all)
  headscope generate MODEL [--text "..."] [--tokens N]   (no text: start from BOS)
  headscope ablate  MODEL --text "..." --head L.H [--head L.H ...] [--mode zero|mean]
                    [--rank] [--json f]   (dec:L.H / cross:L.H for a decoder's heads)
  headscope analyze MODEL --text "..." [--csv metrics.csv] [--json f] [--no-induction]
  headscope analyze MODEL --corpus [--text-file F] [--csv f]   (lines of F, or the samples)
  headscope analyze MODEL --relations FILE [--csv f]   (heads against gold relations: accuracy vs baseline)
  headscope corpus  [--lang en|zh|both] [--count N] [--seed S] [--json f]   (sentences with gold relations)

input options: --text "...", --text-file FILE, --decoder-text "..." (encoder-decoder;
               default: the --text), --pad 3,4 (key positions masked as padding),
               --keep-first (forward, export, analyze of one text: a text over the model's
               max_len runs its first max_len tokens)
--json - and --csv - write to stdout; messages go to stderr.
)";

int print_usage(std::FILE* out) {
    std::fputs(kUsage, out);
    return out == stdout ? 0 : 2;
}

}  // namespace

bool is_cli_command(int argc, char** argv) {
    if (argc < 2) return false;
    const std::string first = argv[1];
    if (first == "help" || first == "--help" || first == "-h" || first == "version" ||
        first == "--version")
        return true;
    for (const Command& c : kCommands)
        if (first == c.name) return true;
    // The window takes only --options, so a bare word is a mistyped command: run_cli
    // reports it as an unknown command instead of starting the window.
    return !first.empty() && first[0] != '-';
}

int run_cli(int argc, char** argv) {
    if (argc < 2) return print_usage(stderr);
    const std::string first = argv[1];
    if (first == "help" || first == "--help" || first == "-h") return print_usage(stdout);
    if (first == "version" || first == "--version") {
        std::printf("headscope %s\n", headscope_version().c_str());
        for (const Component& c : core_components())
            std::printf("  %-24s %-12s %s\n", c.name.c_str(), c.version.empty() ? "-" : c.version.c_str(),
                        c.licence.c_str());
        return 0;
    }
    for (const Command& c : kCommands) {
        if (first != c.name) continue;
        try {
            const int status = c.run(argc, argv);
            // Output lost to a full disk, /dev/full or a closed reader is an error, not
            // success: stdio reports it only when the buffer is flushed.
            if (std::fflush(stdout) != 0 || std::ferror(stdout))
                throw Error(std::string("cannot write the output to standard output: ") + std::strerror(errno));
            return status;
        } catch (const UsageError& e) {
            std::fprintf(stderr, "headscope %s: %s (see 'headscope help')\n", c.name,
                         e.message.c_str());
            return 2;
        } catch (const Error& e) {
            std::fprintf(stderr, "headscope %s: %s\n", c.name, e.what());
            return 1;
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "headscope %s: out of memory (try fewer tokens or a smaller model)\n",
                         c.name);
            return 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "headscope %s: %s\n", c.name, e.what());
            return 1;
        }
    }
    std::fprintf(stderr, "headscope: unknown command '%s' (see 'headscope help')\n", argv[1]);
    return 2;
}

}  // namespace hs
