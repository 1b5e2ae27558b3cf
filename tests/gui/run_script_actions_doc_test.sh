#!/usr/bin/env bash
# docs/SCRIPTING.md lists exactly the actions the script runner knows: every action of
# `headscope --script-actions` (app/script.cpp's table) is documented, and every action a
# table row of the doc names (the first word of each `…` in its first column) exists.
#   run_script_actions_doc_test.sh APP DOC
set -euo pipefail
app=$1 doc=$2
known=$("$app" --script-actions | awk '{print $1}' | sort -u)
[[ $(wc -l <<<"$known") -ge 40 ]] || { echo "FAIL: --script-actions listed too few actions:"; echo "$known"; exit 1; }
documented=$(grep '^| `' "$doc" | cut -d'|' -f2 | grep -o '`[a-z][a-z-]*' | tr -d '`' | sort -u)
missing=$(comm -23 <(echo "$known") <(echo "$documented"))
unknown=$(comm -13 <(echo "$known") <(echo "$documented"))
[[ -z "$missing" ]] || { echo "FAIL: actions missing from $doc:"; echo "$missing"; exit 1; }
[[ -z "$unknown" ]] || { echo "FAIL: $doc documents actions the runner does not know:"; echo "$unknown"; exit 1; }
echo "script actions and docs agree ($(wc -l <<<"$known") actions)"
