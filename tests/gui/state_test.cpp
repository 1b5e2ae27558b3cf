// The app state's helpers that need no window: what the Model panel says when the
// command line asks for a head the model does not have.
#include <gtest/gtest.h>

#include "app/state.h"

namespace hs {
namespace {

TEST(SelectionNotice, NamesTheLayerOrHeadThatWasNotKept) {
    AppState s;
    s.layer = 3;  // after clamp_selection on a 4-layer model
    s.head = 2;
    EXPECT_EQ(selection_notice(99, -1, s), "Layer 99 does not exist; showing layer 3.");
    EXPECT_EQ(selection_notice(3, 40, s), "Head 40 does not exist; showing head 2.");
    EXPECT_EQ(selection_notice(9, 9, s),
              "Layer 9 does not exist; showing layer 3. Head 9 does not exist; showing head 2.");
    EXPECT_EQ(selection_notice(3, 2, s), "");
    EXPECT_EQ(selection_notice(-1, -1, s), "") << "nothing asked on the command line";
}

}  // namespace
}  // namespace hs
