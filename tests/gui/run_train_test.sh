#!/usr/bin/env bash
# The Train view in the window: train the default model on induction for a few steps
# (Train view controls driven by a script), screenshot the view at 1280×720 (at an early
# snapshot of the timeline and at the newest), dump the state; then checks every step's loss, each
# snapshot's held-out loss and induction scores against the same run in core, and that the
# plots are drawn; shows the snapshot of step EVERY in the main views (train-show) and
# checks the heatmap's map is that step's model's on the probe; a Save into a directory that
# holds a model is refused (with Replace offered) and leaves it as it was, --replace writes
# it; then runs the head-count experiment (heads 1, 2) from the Experiment tab; the Train
# button on a setup that cannot train shows why in the Train view
# and checks each run's summary and the exported CSV against core (gui_check train); gui_check fit
# checks that no window runs past its edge.
#   run_train_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
steps=32 every=16
rm -rf "$out"
mkdir -p "$out"
"$app" save "random:d_model=16,heads=2,layers=1" "$out/existing" > /dev/null
cp -r "$out/existing" "$out/replaced"
existing_config=$(cat "$out/existing/config.json")
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
view train
train-save $out/existing
dump-state $out/refused.json
screenshot $out/refused.png
lang zh
screenshot $out/refused_zh.png
lang en
train-save --replace $out/replaced
dump-state $out/replaced.json
view attention
dump-state $out/trained_attention.json
view train
train-experiment heads 1,2
export-experiment-csv $out/experiment.csv
export-experiment-png $out/experiment.png
dump-state $out/experiment.json
screenshot $out/experiment_tab.png
train spec random:d_model=30,heads=4
click train
dump-state $out/bad_setup.json
screenshot $out/bad_setup.png
SCRIPT
timeout 540 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings --layer 0 --head 0 --size 1280x720 --script "$out/session.txt"
for f in state.json train.png timeline.png shown.json shown.png refused.json refused.png replaced.json trained_attention.json experiment.csv experiment.png experiment.json experiment_tab.png bad_setup.json; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
# Save never replaces a model silently: refused, Replace offered, the directory untouched
# (the refused one stays as it was); --replace (the Replace button's save) writes another.
grep -q "\"replace_dir\": \"$out/existing\"" "$out/refused.json" || { echo "FAIL: the Save into a model directory was not refused"; exit 1; }
grep -q "already holds a model (config.json): press Replace" "$out/refused.json" || { echo "FAIL: no reason for the refused Save"; exit 1; }
[[ ! -e "$out/existing/trainer.json" && "$(cat "$out/existing/config.json")" == "$existing_config" ]] \
  || { echo "FAIL: the refused Save changed $out/existing"; exit 1; }
grep -q '"replace_dir": ""' "$out/replaced.json" || { echo "FAIL: Replace was refused"; exit 1; }
[[ -s "$out/replaced/trainer.json" ]] || { echo "FAIL: Replace did not write the checkpoint"; exit 1; }
# The Train button on a setup that cannot train says why in the Train view (it once went
# to the Analysis window's error line, unseen), and nothing starts.
grep -q '"train_error": "d_model 30 is not divisible by 4 heads"' "$out/bad_setup.json" \
  || { echo "FAIL: the Train button's error on d_model 30, 4 heads is not shown"; grep -o '"train_error": "[^"]*"' "$out/bad_setup.json"; exit 1; }
"$checker" train "$out/state.json" "$out/train.png" 1280 720 $steps $every "$out/experiment.json" "$out/experiment.csv" \
  "$out/shown.json"
# Nothing runs past a window's edge at 1280×720: the Train view, the experiment and the
# Model panel showing the trained snapshot (its timeline, probe button and token note).
"$checker" fit "$out/state.json" "$out/experiment.json" "$out/trained_attention.json"
