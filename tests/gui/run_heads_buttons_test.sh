#!/usr/bin/env bash
# The playground's head-count − / + buttons, clicked with the pointer, visit only divisors
# of d_model: at d_model 48 from 8 heads, − gives 6, 4, 3, 2, 1 and stays at 1; + climbs
# 2, 3, 4, 6, 8, 12, 16, 24, 48 and stays at 48. 5 K/V heads then are refused (48
# query heads cannot share them): the dump names the Model panel's error, and the trace
# shown keeps 48 heads. The K/V heads' − / + step through divisors of the head count as
# well: − from the refused 5 gives 4, + then 6. At 1280×720 in English and at 1600×1000
# in Chinese. gui_check heads-buttons reads the trace's head count from each dump.
#   run_heads_buttons_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
clicks() {  # BUTTON COUNT FIRST_INDEX SIZE: COUNT clicks, a dump after each
  local i
  for ((i = 0; i < $2; ++i)); do
    printf 'click %s\ndump-state %s/%s_%02d.json\n' "$1" "$out" "$4" $(($3 + i))
  done
}
for run in "1280x720 en" "1600x1000 zh"; do
  read -r size lang <<< "$run"
  {
    echo "model random:d_model=48,heads=8,layers=1,seed=3"
    echo "lang $lang"
    echo "dump-state $out/${size}_00.json"
    clicks heads- 6 1 "$size"
    clicks heads+ 10 7 "$size"
    echo "set kv_heads 5"
    echo "expect-error"
    echo "dump-state $out/${size}_17.json"
    clicks kv_heads- 1 18 "$size"
    clicks kv_heads+ 1 19 "$size"
  } > "$out/session_$size.txt"
  timeout 140 xvfb-run -n "${HEADSCOPE_XVFB_FIRST:-99}" -a -s "-screen 0 ${size}x24" "$app" --no-settings --size "$size" --script "$out/session_$size.txt"
  "$checker" heads-buttons "$out" "$size"
  # Under the sanitizers one run is enough to check memory (scripts/sanitize.sh); the Release suite runs all.
  if [[ -n "${HEADSCOPE_GUI_FIRST_RUN_ONLY:-}" ]]; then break; fi
done
