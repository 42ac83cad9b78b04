#!/usr/bin/env bash
# Fuzzes the C model of the wire format with libFuzzer and then AFL++ for
# NATIVE_FUZZ_SECONDS each (default 60), keeps what they found that reaches
# new code beyond corpus/native (afl-cmin, then libFuzzer -merge=1) in the
# working corpus .ipcfuzz/work/corpus/native (`make corpus-merge` moves it
# into corpus/native), replays it through the real codecs (a new difference
# is saved as a finding under FUZZ_OUT) and prints the tag coverage of the
# frame target's corpus before and after the native corpus.
# Without clang-16 it says so and exits 0.
#
# Exit: 0 clean, 1 a sanitizer error or crash in the model, or a new codec finding.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${NATIVE_FUZZ_SECONDS:-60}
findings=${FUZZ_OUT:-findings}
out=.ipcfuzz/native
work=$out/work
corpus=corpus/native
grown=.ipcfuzz/work/corpus/native
dict=fuzzers/native/ipc.dict

scripts/build-native.sh fuzzers
if [[ ! -x $out/fuzz_libfuzzer ]]; then
  echo "fuzz-native: skipped (no fuzz targets were built)"
  exit 0
fi
[[ -d $corpus ]] || node scripts/native-corpus.js
# Each fuzzer ends by itself at its time; one still running 5 s later is killed.
limit=(timeout --kill-after=2 $((seconds + 5)))
rm -rf "$work"
mkdir -p "$work/libfuzzer" "$work/crashes"
status=0
before=$(find "$corpus" -type f | wc -l)

echo "fuzz-native: libFuzzer, ${seconds}s"
if ! "${limit[@]}" "$out/fuzz_libfuzzer" "$work/libfuzzer" "$corpus" -dict="$dict" -max_total_time="$seconds" \
    -max_len=4096 -timeout=10 -artifact_prefix="$work/crashes/" -print_final_stats=1 >"$work/libfuzzer.log" 2>&1; then
  echo "fuzz-native: libFuzzer stopped on an error; see $work/libfuzzer.log and $work/crashes/"
  grep -m1 -E "ERROR|SUMMARY" "$work/libfuzzer.log" || true
  status=1
fi
grep -E "^stat::(number_of_executed_units|new_units_added)" "$work/libfuzzer.log" | sed 's/^/  /' || true

queues=("$work/libfuzzer")
if [[ -x $out/fuzz_afl ]] && command -v afl-fuzz >/dev/null; then
  echo "fuzz-native: AFL++, ${seconds}s"
  export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
  AFL_CUSTOM_MUTATOR_LIBRARY="$PWD/$out/libipcfuzz_mutator.so" \
    "${limit[@]}" afl-fuzz -i "$corpus" -o "$work/afl" -x "$dict" -V "$seconds" -- "$out/fuzz_afl" \
    >"$work/afl.log" 2>&1 || status=1
  grep -E "^(execs_done|corpus_count|saved_crashes)" "$work/afl/default/fuzzer_stats" | sed 's/^/  /' || true
  if compgen -G "$work/afl/default/crashes/id:*" >/dev/null; then
    echo "fuzz-native: AFL++ saved crashes in $work/afl/default/crashes/"
    status=1
  fi
  afl-cmin -i "$work/afl/default/queue" -o "$work/afl-min" -- "$out/fuzz_afl" >"$work/afl-cmin.log" 2>&1 &&
    queues+=("$work/afl-min")
fi

# Merged against a copy of the seeds, so only what adds to them is kept.
echo "fuzz-native: merging into $grown"
cp -r "$corpus" "$work/merged"
"$out/fuzz_libfuzzer" -merge=1 "$work/merged" "${queues[@]}" >"$work/merge.log" 2>&1 || status=1
mkdir -p "$grown"
for file in "$work/merged"/*; do
  [[ -e "$corpus/$(basename "$file")" ]] || cp -n "$file" "$grown/"
done
echo "  $before seeds, $(find "$grown" -type f | wc -l) grown inputs"

echo "fuzz-native: replaying $grown through the codecs"
node scripts/native-replay.js "$grown" --out "$findings" || status=1
node scripts/tag-coverage.js
exit $status
