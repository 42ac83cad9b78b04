#!/usr/bin/env bash
# Runs the OSS-Fuzz build of ipcfuzz locally, in the environment OSS-Fuzz's
# builder gives ($SRC, $OUT, $WORK, $CC, $CXX, $CFLAGS, $LIB_FUZZING_ENGINE and
# a stand-in for compile_javascript_fuzzer), then runs every target in $OUT
# briefly on its seed corpus, as OSS-Fuzz's build check does. A target passes
# when it runs to the end, or stops on an ipcfuzz difference (a finding, which
# is what it is there to report); anything else fails the check.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
export SRC=$root/src OUT=$root/out WORK=$root/work
mkdir -p "$SRC/ipcfuzz" "$OUT" "$WORK"
(cd "$repo" && git ls-files -z | xargs -0 cp --parents -t "$SRC/ipcfuzz")

export FUZZING_ENGINE=libfuzzer SANITIZER=none FUZZING_LANGUAGE=javascript ARCHITECTURE=x86_64
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only" CXXFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only"
for version in "" -16; do
  if command -v "clang$version" >/dev/null && command -v "clang++$version" >/dev/null; then
    # As OSS-Fuzz's libFuzzer builds: sources instrumented, the engine linked in.
    export CC=clang$version CXX=clang++$version LIB_FUZZING_ENGINE=-fsanitize=fuzzer
    CFLAGS="$CFLAGS -fsanitize=fuzzer-no-link" CXXFLAGS="$CXXFLAGS -fsanitize=fuzzer-no-link"
    break
  fi
done

# What OSS-Fuzz's compile_javascript_fuzzer writes: a wrapper that runs the
# target with Jazzer.js from the project's copy in $OUT.
compile_javascript_fuzzer() {
  local project=$1 target=$2
  shift 2
  local name
  name=$(basename "$target" .js)
  printf '#!/bin/sh\nthis_dir=$(dirname "$0")\ncd "$this_dir/%s"\nexec npx jazzer %s %s -- "$@"\n' \
    "$project" "$target" "$*" > "$OUT/$name"
  chmod +x "$OUT/$name"
}
export -f compile_javascript_fuzzer

bash "$SRC/ipcfuzz/oss-fuzz/build.sh"

failed=0
for fuzzer in "$OUT"/*; do
  [ -f "$fuzzer" ] && [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  corpus="$WORK/corpus-$name"
  mkdir -p "$corpus"
  [ -f "$OUT/${name}_seed_corpus.zip" ] && unzip -q -o "$OUT/${name}_seed_corpus.zip" -d "$corpus"
  log="$WORK/$name.log"
  if (cd "$WORK" && timeout 300 "$fuzzer" -runs=500 -max_total_time=30 "$corpus") >"$log" 2>&1; then
    echo "oss-fuzz-check: $name ran ($(grep -Eo 'Done [0-9]+ runs' "$log" | head -1))"
  elif grep -q 'ipcfuzz: ' "$log"; then
    echo "oss-fuzz-check: $name ran and reported a difference: $(grep -o 'ipcfuzz: [^;]*' "$log" | head -1 | cut -c1-160)"
  else
    echo "oss-fuzz-check: $name FAILED:"; tail -20 "$log"; failed=1
  fi
done
ls "$OUT"/*_seed_corpus.zip "$OUT"/*.options >/dev/null
exit $failed
