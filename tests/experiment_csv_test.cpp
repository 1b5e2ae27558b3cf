// The head-count experiment's CSV (core/train/experiment): runs written by hand, rows by hand.
#include <gtest/gtest.h>

#include "core/train/experiment.h"

namespace hs::train {
namespace {

TEST(ExperimentCsv, ARunWithoutAnInductionHeadSaysNever) {
    ExperimentRun formed, never;
    formed.value = 2;
    formed.d_k = 32;
    formed.final_loss = 2.5;
    formed.held_out_loss = 2.25;
    formed.best_induction = 0.625;
    formed.first_induction_step = 600;
    formed.roles = {{"induction", 1}, {"previous-token", 1}};
    never.value = 16;
    never.d_k = 4;
    never.final_loss = 3.0;
    never.held_out_loss = 3.125;
    never.best_induction = 0.125;
    never.first_induction_step = -1;
    never.roles = {{"mixed", 16}};
    EXPECT_EQ(experiment_csv("heads", {formed, never}),
              "heads,d_k,final_loss,held_out_loss,best_induction,first_induction_step,roles\n"
              "2,32,2.500000,2.250000,0.625000,600,\"induction ×1; previous-token ×1\"\n"
              "16,4,3.000000,3.125000,0.125000,never,\"mixed ×16\"\n");
}

}  // namespace
}  // namespace hs::train
