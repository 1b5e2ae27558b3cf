#include "cli/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "core/about.h"
#include "core/assets.h"
#include "core/error.h"

namespace hs {

namespace {

// A command and its help: `synopsis` is its part of the global help's "commands:" list,
// and with `summary`, `options` and the shared sections it makes 'headscope help NAME'.
struct Command {
    const char* name;
    int (*run)(int, char**);
    const char* summary;   // what it does, in a line
    const char* synopsis;  // its usage lines, as listed by 'headscope help'
    const char* options;   // its arguments and options, one line each
    bool takes_model;      // MODEL: the "MODEL is one of" section applies
    bool takes_input;      // the input options (--text, --pad, …) apply
    bool takes_keep_first = false;  // --keep-first: a text over max_len runs its first max_len tokens
};

constexpr const char* kHeader = R"(usage: headscope [COMMAND] ...

With no command, headscope opens the window.

)";

constexpr const char* kModelHelp = R"(MODEL is one of
  default      the model HeadScope trains itself on English and Chinese (learned heads:
               agreement, modifier, negation, induction, …; docs/DEFAULT_MODEL.md)
  random:d_model=512,heads=8,layers=2,seed=1,mask=causal,arch=decoder,pe=sinusoidal
      a playground model with seeded random weights, untrained (keys: d_model heads layers d_ff
      vocab max_len seed mask=none|causal arch=encoder|decoder|encoder-decoder
      pe=sinusoidal|learned|rope|none rope=rotate-half|interleaved theta=10000
      norm=post-ln|pre-ln|rmsnorm|post-rmsnorm act=relu|gelu|gelu-tanh|swiglu|geglu
      kv_heads=K bias=0|1 lm_head=tied|separate|none
      window=W: sliding-window attention as Mistral, each causal query sees the last W keys
      window_layers=GL: the layers the window narrows, L local and G global, repeated (GPT-Neo)
      scale=S: scores = Q·Kᵀ × S instead of 1/√d_k (GPT-Neo: 1)
      qk_norm=0|1: Qwen3's RMSNorm of every head's q and k before the rotation
      rotary_dims=R: rotate only the first R dims of each head (GPT-NeoX)
      parallel=0|1: attention and feed-forward side by side on the layer's input (Pythia)
      embed_scale=0|1: token embeddings × √d_model (Gemma)
      sandwich=0|1: each sub-layer's output normalised before the residual (Gemma 2, 3)
      softcap=C, logit_softcap=C: scores, logits → C·tanh(x / C) (Gemma 2: 50, 30)
      local_theta=B: the local layers' rope base (Gemma 3: 10000; 0: theta))
      a Llama block: random:d_model=256,heads=8,kv_heads=2,layers=4,arch=decoder,
                     pe=rope,norm=rmsnorm,act=swiglu,bias=0
  DIR          a model directory (config.json + model.safetensors)
  FILE.json    a worked example (assets/examples/)
  FILE.gguf    a GGUF file (llama.cpp, ollama): llama, qwen2, qwen3, gemma, gemma2, gemma3, phi3,
               gpt2 or gptneox,
               SentencePiece or byte-level BPE tokenizer;
               weights F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K…Q6_K, IQ4_NL
  FILE.bin     a llama2.c checkpoint (tokenizer.bin or tok*.bin beside it)
)";

constexpr const char* kInputHelp = R"(input options: --text "...", --text-file FILE, --decoder-text "..." (encoder-decoder;
               default: the --text), --pad 3,4 (key positions masked as padding),
               --keep-first (forward, export, analyze of one text: a text over the model's
               max_len runs its first max_len tokens)
--json - and --csv - write to stdout; messages go to stderr.
)";

// In the order of the global help.
constexpr Command kCommands[] = {
    {"forward", cmd_forward, "run MODEL on a text; --json FILE writes the trace",
     R"(  headscope forward MODEL --text "..." [--json out.json] [--save DIR] [--scores]
                    [--detail-layer L] [--quiet] [--map-budget MiB]   (maps kept; default 256)
                    [--tap NAME,...]   (named intermediates, '*' matches any run: layers.*.attn_out)
  headscope forward MODEL --list-taps                 (every name --tap can keep)
)",
     R"(  --json FILE         the trace: tokens, ids, config, hidden states and every head's weights
  --save DIR          also write MODEL as a model directory (playground models, directories), new or
                      empty unless --force
  --scores            keep the scores before softmax too
  --detail-layer L    every step of layer L's attention, under "steps" in the JSON
  --quiet             no summary on stdout
  --map-budget MiB    attention maps kept in memory; the others are recomputed when needed
  --tap NAME,...      intermediates to keep, under "taps" in the JSON
  --list-taps         print the names --tap takes for MODEL, and stop
)",
     true, true, /*takes_keep_first=*/true},
    {"export", cmd_export, "heatmap PNG/SVG/CSV/JSON of one head (--layer --head) or --grid",
     R"(  headscope export  MODEL --text "..." --layer L --head H --png out.png [--svg f] [--csv f] [--json f]
  headscope export  MODEL --text "..." --grid --png grid.png [--svg grid.svg]
                    [--decoder] [--cross] [--colormap viridis|magma|inferno|greys|redblue]
                    [--gamma G] [--log] [--auto-range] [--map-budget MiB]
                    [--scale 1|2|4] [--no-values]   (figure size; values printed in cells that fit)
)",
     R"(  --layer L --head H  the head to export (from 0)
  --grid              every layer × head in one figure (--png and --svg only)
  --png F, --svg F    the heatmap as a figure
  --csv F, --json F   the weights with the query and key tokens
  --decoder           the decoder stack of an encoder-decoder
  --cross             the cross-attention maps (decoder queries, encoder keys)
  --colormap NAME     the colours (default viridis)
  --gamma G           colour scale value^G, G > 0
  --log               a logarithmic colour scale
  --auto-range        the colour range of the data instead of 0..1
  --map-budget MiB    maps kept besides the exported layer (default 0)
  --scale 1|2|4       the figure at 1×, 2× or 4× the pixels
  --no-values         no numbers in the cells
Every output path is checked before any file is written.
)",
     true, true, /*takes_keep_first=*/true},
    {"inspect", cmd_inspect, "config, tensors and parameter count of MODEL", "  headscope inspect MODEL\n", "", true,
     false},
    {"bench", cmd_bench, "forward-pass timing of MODEL on --tokens N",
     "  headscope bench   MODEL --tokens N [--repeat R] [--attention-only]\n",
     R"(  --tokens N          input length (default 128, at most the model's max_len)
  --repeat R          timed runs (default 5)
  --attention-only    time layer 0's attention block alone
)",
     true, false},
    {"save", cmd_save, "write a playground MODEL as a model directory DIR", "  headscope save    MODEL DIR [--force]\n",
     "  DIR                 the model directory to write (config.json + model.safetensors), new or empty\n"
     "  --force             replace the model DIR holds (or write among the files of a non-empty DIR)\n",
     true, false},
    {"train", cmd_train, "train a playground decoder on a task (copy, reverse, sort, induction) or a text file",
     R"(  headscope train   TASK [--spec SPEC] [--steps N] [--batch B] [--lr X] [--warmup W] [--seed S]
                    [--every K] [--save DIR] [--log CSV] [--snapshots DIR]   (TASK: copy reverse sort induction grammar)
  headscope train   grammar [--window N] [--induction P] …   (the bilingual grammar; P % induction examples)
  headscope train   --text-file F [--level char|word] [--window N] [--spec SPEC] …   (a text: vocab from --spec)
  headscope train   TASK --sweep heads=1,2,4,8,16|d_model=… [--sweep-csv F] [--sweep-png F] …
  headscope train   --resume DIR --steps N [--every K] [--save DIR] [--log CSV]   (N: steps in all)
)",
     R"(  TASK                copy, reverse, sort, induction or grammar (sentences of the bilingual grammar)
  --text-file F       a text to train on instead, split into --level char|word tokens
  --window N          tokens an example (grammar, --text-file)
  --induction P       per cent of grammar examples that are induction sequences (default 25)
  --spec SPEC         playground keys replacing those of the default training spec
  --steps N           steps in all (default 500)
  --batch B           examples per step (default 16)
  --lr X              peak learning rate of AdamW (default 1e-3)
  --warmup W          warm-up steps (default a tenth of the steps, at most 100)
  --seed S            seed of the examples (default 1); the weights' seed is --spec seed=N (default 0)
  --every K           loss and head scores every K steps (default steps / 20)
  --save DIR          a checkpoint at the end: a model directory with the optimizer state
  --log CSV           a row per step: loss, gradient norm, learning rate, tokens
  --snapshots DIR     every K steps a checkpoint DIR/step_NNNNNN, and DIR/trajectories.csv
  --resume DIR        continue the checkpoint DIR on its own schedule, saved back into DIR at
                      the end (--save OTHER keeps DIR as it was; a snapshot step_N needs --save)
  --sweep KEY=V,...   one run per value, --sweep-csv F a row per run, --sweep-png F a figure
  --force             let --save / --snapshots replace what a non-empty directory holds
--save, --log and --snapshots are checked before step 1: a directory that is not empty is refused
unless --force, or it is the checkpoint --resume continues.
)",
     false, false},
    {"generate", cmd_generate, "continuation of --text by a decoder language MODEL (a checkpoint or a model HeadScope trained); greedy unless --temperature",
     "  headscope generate MODEL [--text \"...\"] [--tokens N] [--temperature T] [--top-k K] [--top-p P] [--seed S]\n",
     R"(  --text "...", --text-file F   the prompt (no text: start from BOS)
  --tokens N          tokens to generate (default 32)
  --temperature T     0 (default): greedy, the most likely token each time; above 0: tokens drawn
                      from softmax(logits / T)
  --top-k K           draw among the K most likely tokens only (default 0: all)
  --top-p P           draw among the fewest most likely tokens whose probability reaches P (default 1)
  --seed S            the draws' seed (default 0): the same tokens for a seed on every machine
)",
     true, false},
    {"tokenize", cmd_tokenize, "the token ids (or --pieces) MODEL's tokenizer gives a text",
     "  headscope tokenize MODEL (--text \"...\" | --text-file F) [--no-special] [--pieces] [--json F]\n",
     R"(  MODEL               any model, or a tokenizer alone: a GGUF file (vocab-only too), a
                      tokenizer.json or a SentencePiece tokenizer.model (no weights are read)
  --text "...", --text-file F   the text
  --no-special        without special tokens (BOS, [CLS] … [SEP])
  --pieces            the pieces, quoted, instead of the ids
  --json F            text, ids and pieces as JSON
)",
     true, false},
    {"ablate", cmd_ablate, "switch heads off (--head L.H) and show what changes; --rank",
     R"(  headscope ablate  MODEL --text "..." --head L.H [--head L.H ...] [--mode zero|mean]
                    [--rank] [--json f]   (dec:L.H / cross:L.H for a decoder's heads)
)",
     R"(  --head L.H          a head to switch off (layer.head from 0, or as analyze prints it: L0.H3); repeat for more
  --mode zero|mean    its output set to zero (default) or to its mean over the tokens
  --rank              switch every head off in turn and sort them by effect
  --json FILE         the effects as JSON (-: stdout, instead of the table)
)",
     true, true},
    {"analyze", cmd_analyze, "per-head metrics, role labels and redundant pairs (--csv, --json, --corpus)",
     R"(  headscope analyze MODEL --text "..." [--csv metrics.csv] [--json f] [--no-induction]
  headscope analyze MODEL --corpus [--text-file F] [--csv f]   (lines of F, or the samples)
  headscope analyze MODEL --relations FILE [--csv f]   (heads against gold relations: accuracy vs baseline)
)",
     R"(  --text "...", --text-file F   the text (with --corpus: one sentence a line)
  --keep-first        a text over the model's max_len runs its first max_len tokens
  --csv F, --json F   the metrics and labels (-: stdout); --json also has rollout
  --corpus            means and spreads over many sentences
  --relations FILE    a relations file (headscope corpus --json)
  --no-induction      skip the induction test (a repeated random sequence)
  --induction-len N   its sequence length (default 24); --seed S its seed (default 1)
  --pairs N           redundant pairs listed (default 10)
  --quiet             no table on stdout
)",
     true, false, /*takes_keep_first=*/true},
    {"corpus", cmd_corpus, "sentences of the bilingual grammar with gold relations (--json: a relations file)",
     "  headscope corpus  [--lang en|zh|both] [--count N] [--seed S] [--held-out] [--json f]   (sentences with gold relations)\n",
     R"(  --lang en|zh|both   the language (default both)
  --count N           sentences (default 20)
  --seed S            seed of the sentences (default 1)
  --held-out          structure families the default model never trained on (what its claims are measured on)
  --json FILE         a relations file for analyze --relations (-: stdout)
)",
     false, false},
};

void print_usage_to(std::FILE* out) {
    std::fputs(kHeader, out);
    std::fputs(kModelHelp, out);
    std::fputs("\ncommands:\n", out);
    for (const Command& c : kCommands) std::fputs(c.synopsis, out);
    std::fputs("\n", out);
    std::fputs(kInputHelp, out);
}

int print_usage(std::FILE* out) {
    print_usage_to(out);
    return out == stdout ? 0 : 2;
}

// 'headscope help NAME', 'headscope NAME --help': what the command does, its usage and
// options, and the sections on MODEL and the input it shares with other commands.
int print_command_help(const Command& c) {
    std::printf("headscope %s: %s\n\nusage:\n%s", c.name, c.summary, c.synopsis);
    if (*c.options) std::printf("\noptions:\n%s", c.options);
    if (c.takes_model) std::printf("\n%s", kModelHelp);
    if (c.takes_input) std::printf("\n%s", kInputHelp);
    return 0;
}

const Command* find_command(const std::string& name) {
    for (const Command& c : kCommands)
        if (name == c.name) return &c;
    return nullptr;
}

bool is_help(const std::string& word) { return word == "help" || word == "--help" || word == "-h"; }

// headscope help [COMMAND]
int run_help(int argc, char** argv) {
    if (argc < 3) return print_usage(stdout);
    if (argc > 3) {
        std::fprintf(stderr, "headscope help: unexpected argument '%s' (see 'headscope help')\n", argv[3]);
        return 2;
    }
    const std::string topic = argv[2];
    if (is_help(topic)) return print_usage(stdout);
    if (const Command* c = find_command(topic)) return print_command_help(*c);
    std::fprintf(stderr, "headscope help: unknown command '%s' (see 'headscope help')\n", argv[2]);
    return 2;
}

int print_version() {
    std::printf("headscope %s (git %s)\n", headscope_version().c_str(), headscope_revision().c_str());
    std::printf("  %-24s %s\n", "assets", assets_dir().c_str());
    for (const Component& c : core_components())
        std::printf("  %-24s %-12s %s\n", c.name.c_str(), c.version.empty() ? "-" : c.version.c_str(),
                    c.licence.c_str());
    return 0;
}

// Runs one command, reporting its errors on one line of stderr.
int run_command(const Command& c, int argc, char** argv) {
    try {
        const int status = c.run(argc, argv);
        // Output lost to a full disk, /dev/full or a closed reader is an error, not
        // success: stdio reports it only when the buffer is flushed.
        if (std::fflush(stdout) != 0 || std::ferror(stdout))
            throw Error(std::string("cannot write the output to standard output: ") + std::strerror(errno));
        return status;
    } catch (const HelpRequested&) {
        return print_command_help(c);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "headscope %s: %s (see 'headscope help %s')\n", c.name, e.message.c_str(), c.name);
        return 2;
    } catch (const InputError& e) {
        // A text over max_len: the commands that take --keep-first say so.
        const bool keeps = e.max_len > 0 && c.takes_keep_first;
        std::fprintf(stderr, "headscope %s: %s%s\n", c.name, e.what(),
                     keeps ? ("; --keep-first runs its first " + std::to_string(e.max_len)).c_str() : "");
        return 1;
    } catch (const Error& e) {
        std::fprintf(stderr, "headscope %s: %s\n", c.name, e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "headscope %s: out of memory (try fewer tokens or a smaller model)\n", c.name);
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "headscope %s: %s\n", c.name, e.what());
        return 1;
    }
}

}  // namespace

bool is_cli_command(int argc, char** argv) {
    if (argc < 2) return false;
    const std::string first = argv[1];
    if (is_help(first) || first == "version" || first == "--version" || find_command(first)) return true;
    // The window takes --options and one existing file or directory to open ("Open with"
    // from a file manager, a path on the command line), so any other bare word is a
    // mistyped command: run_cli reports it as an unknown command instead of starting the
    // window.
    std::error_code ec;
    return !first.empty() && first[0] != '-' && !std::filesystem::exists(first, ec);
}

int run_cli(int argc, char** argv) {
    if (argc < 2) return print_usage(stderr);
    const std::string first = argv[1];
    if (is_help(first)) return run_help(argc, argv);
    if (first == "version" || first == "--version") return print_version();
    if (const Command* c = find_command(first)) return run_command(*c, argc, argv);
    std::fprintf(stderr, "headscope: unknown command '%s' (see 'headscope help')\n", argv[1]);
    return 2;
}

}  // namespace hs
