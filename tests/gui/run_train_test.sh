#!/usr/bin/env bash
# The Train view in the window: train the default model on induction for a few steps
# (Train view controls driven by a script), screenshot the view at 1280×720 (at an early
# snapshot of the timeline and at the newest), dump the state; then checks every step's loss, each
# snapshot's held-out loss and induction scores against the same run in core, and that the
# plots are drawn; shows the snapshot of step EVERY in the main views (train-show) and
# checks the heatmap's map is that step's model's on the probe; then runs the head-count experiment (heads 1, 2) from the Experiment tab
# and checks each run's summary and the exported CSV against core (gui_check train); gui_check fit
# checks that no window runs past its edge.
#   run_train_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
steps=32 every=16
rm -rf "$out"
mkdir -p "$out"
cat > "$out/session.txt" <<SCRIPT
view train
train task induction
train batch 8
train steps $steps
train every $every
train-start
train-timeline 1
screenshot $out/timeline.png
train-timeline -1
dump-state $out/state.json
screenshot $out/train.png
train-show $every
dump-state $out/shown.json
screenshot $out/shown.png
view attention
dump-state $out/trained_attention.json
view train
train-experiment heads 1,2
export-experiment-csv $out/experiment.csv
export-experiment-png $out/experiment.png
dump-state $out/experiment.json
screenshot $out/experiment_tab.png
SCRIPT
timeout 540 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings --layer 0 --head 0 --size 1280x720 --script "$out/session.txt"
for f in state.json train.png timeline.png shown.json shown.png trained_attention.json experiment.csv experiment.png experiment.json experiment_tab.png; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
"$checker" train "$out/state.json" "$out/train.png" 1280 720 $steps $every "$out/experiment.json" "$out/experiment.csv" \
  "$out/shown.json"
# Nothing runs past a window's edge at 1280×720: the Train view, the experiment and the
# Model panel showing the trained snapshot (its timeline, probe button and token note).
"$checker" fit "$out/state.json" "$out/experiment.json" "$out/trained_attention.json"
