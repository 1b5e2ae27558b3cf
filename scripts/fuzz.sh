#!/usr/bin/env bash
# Fuzzes every reader of other people's files (tests/fuzz/fuzz_*.cpp) with libFuzzer under
# ASan + UBSan, SECONDS each (default 60), and prints executions and findings per target.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# Builds build-fuzz/ with clang (Debian's clang + libclang-rt: scripts/deps.sh --fuzz).
# Corpora grow in build-fuzz/corpus/TARGET (seeded from the test fixtures); crash, leak,
# timeout and out-of-memory inputs land in build-fuzz/findings/TARGET/ — replay one with
# build-fuzz/tests/fuzz/replay_fuzz_TARGET FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
bash scripts/deps.sh --fuzz
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DHEADSCOPE_FUZZ=ON -DHEADSCOPE_BUILD_APP=OFF -DHEADSCOPE_OPENBLAS=OFF \
  -DCMAKE_CXX_FLAGS="$flags -fsanitize=fuzzer-no-link" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(safetensors model_config playground_spec tokenizer_json gpt2_vocab wordpiece_vocab llama2c_tokenizer worked_example samples settings
           trainer_state text_corpus relations messages gguf sentencepiece_model pre_splits)
fi
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}" "${targets[@]/#/replay_fuzz_}"

printf '%-20s %12s %10s  %s\n' target executions exec/s result
status=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  while IFS= read -r seed; do  # seed files and folders from tests/fuzz/CMakeLists.txt
    [[ -z "$seed" || ! -e "$seed" ]] && continue
    if [[ -d "$seed" ]]; then find "$seed" -type f -size -2M -exec cp -n {} "$corpus/" \; ; else cp -n "$seed" "$corpus/"; fi
  done < build-fuzz/tests/fuzz/seeds_$t.txt
  log=build-fuzz/findings/$t.log
  set +e
  HEADSCOPE_THREADS=1 ASAN_OPTIONS=detect_leaks=1 build-fuzz/tests/fuzz/fuzz_$t "$corpus" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 -max_len=65536 \
    -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1
  code=$?
  set -e
  runs=$(grep -oP 'stat::number_of_executed_units:\s*\K\d+' "$log" | tail -1)
  rate=$(grep -oP 'stat::average_exec_per_sec:\s*\K\d+' "$log" | tail -1)
  result="clean"
  if [[ $code -ne 0 ]]; then
    result="FOUND: $(grep -m1 -oE 'ERROR: [A-Za-z]+: [^ ]+|ERROR: libFuzzer: [a-z-]+' "$log" || echo "exit $code") (see $log)"
    status=1
  fi
  printf '%-20s %12s %10s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$result"
done
exit $status
