#!/usr/bin/env bash
# Long and empty inputs by the text box: a text over the model's max_len is refused with
# both counts and the "keep the first N tokens" choice; taking it runs the first max_len
# tokens; an empty text's error shows by the text box (not the Model panel) and export
# refuses the older map. A 600-token text on a playground: the auto range's top is below
# the map's max (robust range). Chinese on stories260K (an English model): the note on
# byte tokens; the default model's note on words outside its vocabulary. Screenshots at
# 1280×720; gui_check long-text checks.
#   run_long_text_test.sh APP CHECKER OUTDIR STORIES260K_BIN
set -euo pipefail
app=$1 checker=$2 out=$3 stories=$4
rm -rf "$out"
mkdir -p "$out"
words=""
for i in $(seq 1 40); do words+="word$((i % 7)) "; done
long=""
for i in $(seq 1 600); do long+="w$((i % 13)) "; done
cat > "$out/session.txt" <<SCRIPT
model random:d_model=32,heads=2,layers=1,max_len=16,seed=5
text $words
expect-error
dump-state $out/too_long.json
screenshot $out/too_long.png
keep-first on
dump-state $out/kept.json
screenshot $out/kept.png
text
expect-error
dump-state $out/empty.json
screenshot $out/empty.png
model random:d_model=32,heads=2,layers=1,seed=5,mask=causal
text $long
select layer 0
select head 1
dump-state $out/long.json
screenshot $out/long.png
model $stories
text 小明 ok
dump-state $out/bytes.json
screenshot $out/bytes.png
model default
text the zzyzx dog is qwopp . zzyzx
dump-state $out/unknown.json
screenshot $out/unknown.png
SCRIPT
timeout 240 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s '-screen 0 1280x720x24' "$app" --no-settings --size 1280x720 --script "$out/session.txt"
for f in too_long.json kept.json empty.json long.json bytes.json bytes.png unknown.json unknown.png too_long.png kept.png \
         empty.png long.png; do
  [[ -s "$out/$f" ]] || { echo "FAIL: $out/$f was not written"; exit 1; }
done
"$checker" long-text "$out"
