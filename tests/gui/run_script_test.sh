#!/usr/bin/env bash
# Drives headscope through a scripted session under Xvfb (heads 8 -> 4, d_model change,
# an invalid edit that must show an error, causal mask with a sliding window of 4 keys in
# layer 0 only (layer 1 global) and scores scaled by 0.5 and soft-capped at 0.75, RMSNorm with 2 key/value heads,
# select layer/head, exports),
# then checks the files against an independent forward pass (gui_check script).
#   run_script_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
text="Alice gave Bob her book because he had lost his own copy ."
cat > "$out/session.txt" <<SCRIPT
# starts at d_model 64, 8 heads, d_ff 256 = 4·d_model (follows d_model: 192 at 48)
set heads 4
set d_model 48
set heads 5
expect-error
set heads 4
set mask causal
set window 4
set window_layers LG
set scale 0.5
set softcap 0.75
set norm rmsnorm
set parallel 1
set kv_heads 2
select layer 1
select head 3
export-json $out/trace.json
export-png $out/head.png
export-png $out/head.svg
export-grid $out/grid.png
export-csv $out/head.csv
screenshot $out/after.png
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1600x1000x24' "$app" --no-settings \
  --model "random:d_model=64,heads=8,layers=2,seed=3" --text "$text" --script "$out/session.txt"
for f in trace.json head.png head.svg grid.png head.csv after.png; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
"$checker" script "$out" "random:d_model=48,heads=4,layers=2,d_ff=192,seed=3,mask=causal,window=4,window_layers=LG,scale=0.5,softcap=0.75,norm=rmsnorm,parallel=1,kv_heads=2" "$text" 1 3
# A script that is a directory, or holds no commands, is refused with its reason.
: > "$out/empty.txt"
for bad in "$out" "$out/empty.txt"; do
  if timeout 60 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 640x480x24' "$app" --no-settings --script "$bad" 2> "$out/bad.err"; then
    echo "FAIL: --script $bad was accepted"; exit 1
  fi
  grep -q -e "cannot read $bad" -e "script $bad has no commands" "$out/bad.err" || { echo "FAIL: no reason for $bad:"; cat "$out/bad.err"; exit 1; }
done
# A model that cannot be opened fails the run at once (not after the 90 s stall) with the
# open error, named by where it came from: --model, a middle line, the last line. With
# expect-error after it the same runs pass, and take their screenshots.
expect_failure() {  # expect_failure NAME MODEL WANTED-STDERR-TEXT
  if timeout 60 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 640x480x24' "$app" --no-settings \
      --model "$2" --script "$out/$1.txt" 2> "$out/$1.err"; then
    echo "FAIL: script $1 passed"; exit 1
  fi
  grep -qF "$3" "$out/$1.err" || { echo "FAIL: script $1 did not say: $3"; cat "$out/$1.err"; exit 1; }
}
# A small playground: the default model would probe its relations on opening first
# (seconds under ASan, for each run).
small="random:d_model=64,heads=4,layers=1"
missing="'$out/missing.bin' does not exist"
printf 'screenshot %s\n' "$out/no_model.png" > "$out/no_model.txt"
expect_failure no_model "$out/missing.bin" "script: the starting model or text: $missing"
printf 'model %s\nscreenshot %s\n' "$out/missing.bin" "$out/mid.png" > "$out/mid.txt"
expect_failure mid "$small" "script: line 'model $out/missing.bin': $missing"
printf 'model %s\n' "$out/missing.bin" > "$out/last.txt"
expect_failure last "$small" "script: line 'model $out/missing.bin': $missing"
printf 'set heads 5\nexpect-error\nset heads 4\nset heads 5\n' > "$out/again.txt"
expect_failure again "$small" "script: line 'set heads 5': d_model 64 is not divisible by 5 heads"
printf 'tab article\n' > "$out/article.txt"
expect_failure article "$small" "script: line 'tab article': this model has no article to compare with"
printf 'expect-error\nscreenshot %s\n' "$out/no_model.png" > "$out/no_model_expected.txt"
printf 'model %s\nexpect-error\nscreenshot %s\n' "$out/missing.bin" "$out/mid.png" > "$out/mid_expected.txt"
for script in no_model_expected:"$out/missing.bin" mid_expected:"$small"; do
  timeout 60 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 640x480x24' "$app" --no-settings \
    --model "${script#*:}" --script "$out/${script%%:*}.txt"
done
for f in no_model.png mid.png; do [[ -s "$out/$f" ]] || { echo "FAIL: $f was not taken"; exit 1; }; done
# A task model (trained on induction) reads none of the English text: it opens on an
# example of its task, which becomes the text, and the notice says so.
"$app" train induction --steps 2 --save "$out/task_model" > /dev/null
printf 'model %s\ndump-state %s\n' "$out/task_model" "$out/task_model.json" > "$out/task_model.txt"
timeout 60 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 640x480x24' "$app" --no-settings \
  --model "$small" --text "Alice helped John" --script "$out/task_model.txt"
grep -q '"text": "<bos> #' "$out/task_model.json" || { echo "FAIL: the task model's text is not its example"; exit 1; }
grep -q '"notice": "This model does not read the text typed before: it opens on an example of its task."' \
  "$out/task_model.json" || { echo "FAIL: no notice of the replaced text"; exit 1; }
grep -q '"model_arg": "'"$out"'/task_model"' "$out/task_model.json" || { echo "FAIL: the task model is not the one shown"; exit 1; }
# A model that does not open stays chosen in the Model panel with its error, while the
# window goes on with the model on screen and what was selected in it: the cross-attention
# map of layer 0, head 1, whose Pipeline stays drawn (it asked for the steps of
# self-attention before and never got them); a new text then runs on that model (it
# failed on the missing one before).
encdec="random:d_model=16,heads=2,layers=1,seed=1"
printf 'tab pipeline\nselect map cross\nselect head 1\nmodel %s\nexpect-error\ntab layers\ntab pipeline\ntext a c\ndump-state %s\n' \
  "$out/missing.bin" "$out/kept_view.json" > "$out/kept_view.txt"
timeout 60 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1280x720x24' "$app" --no-settings \
  --model "$encdec,arch=encoder-decoder" --text "a b c" --script "$out/kept_view.txt"
grep -q '"map_kind": "decoder-cross"' "$out/kept_view.json" || { echo "FAIL: the map kind was not kept"; exit 1; }
grep -q '"head": 1' "$out/kept_view.json" || { echo "FAIL: the head was not kept"; exit 1; }
grep -q '"title": "K_1 = M·W_K^1"' "$out/kept_view.json" || { echo "FAIL: the Pipeline of the kept map is not drawn"; exit 1; }
grep -q '"model_arg": "'"$out/missing.bin"'"' "$out/kept_view.json" || { echo "FAIL: the Model panel lost the choice that failed"; exit 1; }
grep -q '"trace_model_arg": "'"$encdec"',arch=encoder-decoder' "$out/kept_view.json" || { echo "FAIL: the maps are not the shown model's"; exit 1; }
tr -d ' \n' < "$out/kept_view.json" | grep -q '"tokens":\["a","c"\]' || { echo "FAIL: the new text did not run on the model shown"; exit 1; }
grep -qF '"open_error": "'"$missing"'' "$out/kept_view.json" || { echo "FAIL: the open error is gone"; exit 1; }
# Choosing the model on screen again takes the error away, and what follows runs as usual.
printf 'model %s
expect-error
model %s
text a b
keep-first on
dump-state %s
' "$out/missing.bin" "$small" \
  "$out/rechosen.json" > "$out/rechosen.txt"
timeout 60 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 640x480x24' "$app" --no-settings \
  --model "$small" --text "a b c" --script "$out/rechosen.txt" || { echo "FAIL: the script failed after the model was chosen again"; exit 1; }
grep -q '"open_error": ""' "$out/rechosen.json" || { echo "FAIL: the open error stayed after the shown model was chosen again"; exit 1; }
# 'set arch decoder' makes the model causal, as the Model panel's architecture box does.
printf 'set arch decoder\ndump-state %s\n' "$out/arch.json" > "$out/arch.txt"
timeout 60 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 640x480x24' "$app" --no-settings \
  --model "$small" --script "$out/arch.txt"
grep -q '"model_arg": "random:[^"]*arch=decoder,mask=causal' "$out/arch.json" || { echo "FAIL: set arch decoder left the mask off"; exit 1; }
# The notice of the replaced text goes with that text: typing another takes it away.
printf 'model %s\ntext <bos> #3 #4\ndump-state %s\n' "$out/task_model" "$out/task_model_typed.json" > "$out/task_model_typed.txt"
timeout 60 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 640x480x24' "$app" --no-settings \
  --model "$small" --text "Alice helped John" --script "$out/task_model_typed.txt"
if grep -q '"notice": "This model does not read' "$out/task_model_typed.json"; then echo "FAIL: the replaced-text notice stayed after another text"; exit 1; fi
