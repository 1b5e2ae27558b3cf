#pragma once
// One function per subcommand; each returns the exit status and throws hs::Error or
// UsageError for the dispatcher in cli.cpp to report on one line.
namespace hs {

int cmd_forward(int argc, char** argv);
int cmd_export(int argc, char** argv);
int cmd_inspect(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_save(int argc, char** argv);
int cmd_generate(int argc, char** argv);
int cmd_tokenize(int argc, char** argv);
int cmd_ablate(int argc, char** argv);
int cmd_analyze(int argc, char** argv);
int cmd_train(int argc, char** argv);
int cmd_corpus(int argc, char** argv);

}  // namespace hs
