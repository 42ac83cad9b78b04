#!/usr/bin/env bash
# Runs the OSS-Fuzz build of ipcfuzz locally, in the environment OSS-Fuzz's
# builder gives ($SRC, $OUT, $WORK, $CC, $CXX, $CFLAGS, $LIB_FUZZING_ENGINE),
# then checks $OUT by the platform's rules (scripts/oss-fuzz-check.js):
# discovery, the runner's glibc, and each target run the ways ClusterFuzz runs
# it; and the workflows that run ClusterFuzzLite, by the way its actions read
# project.yaml. OSS_FUZZ_CHECK_SECONDS (default 20) is each target's fuzzing time.
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
[ -n "${LIB_FUZZING_ENGINE:-}" ] ||
  echo "oss-fuzz-check: no clang: the C model's target is not built (apt-get install clang-16 libclang-rt-16-dev)"

# A workflow the platform would read otherwise fails before the build.
workflows=()
for file in "$SRC/ipcfuzz"/.github/workflows/*.yml; do workflows+=(--workflow "$file"); done
node "$repo/scripts/oss-fuzz-check.js" "${workflows[@]}"

bash "$SRC/ipcfuzz/oss-fuzz/build.sh"

node "$repo/scripts/oss-fuzz-check.js" --out "$OUT" --work "$WORK" --seconds "${OSS_FUZZ_CHECK_SECONDS:-20}" \
  --project "$SRC/ipcfuzz/oss-fuzz" --project "$SRC/ipcfuzz/.clusterfuzzlite"
