// The app state's helpers that need no window: what the Model panel says when the
// command line asks for a head the model does not have, and how long it says so.
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

TEST(SelectionNotice, GoesWhenAnotherModelIsShownAndNotBefore) {
    AppState s;
    s.source = SourceKind::Playground;
    s.config.layers = 2;
    SelectionNoticeKeeper keeper;
    keeper.show(s, "Layer 9 does not exist; showing layer 1.");
    keeper.drop_when_model_changes(s);
    EXPECT_EQ(s.notice, "Layer 9 does not exist; showing layer 1.") << "same model: the notice stays";
    s.config.layers = 12;  // a layers edit: another model, which may have layer 9
    keeper.drop_when_model_changes(s);
    EXPECT_EQ(s.notice, "");
    // A notice that replaced it (an error, "Opened …") is left alone.
    keeper.show(s, "Head 40 does not exist; showing head 3.");
    s.notice = "Opened /tmp/m";
    s.source = SourceKind::ModelDirectory;
    keeper.drop_when_model_changes(s);
    EXPECT_EQ(s.notice, "Opened /tmp/m");
}

}  // namespace
}  // namespace hs
