#!/usr/bin/env bash
# Builds the C model of the wire format (fuzzers/native/): the Node-API addon
# that fuzzers/native/model.js loads, and the fuzz targets when clang-16 and AFL++
# are there; and the synchronous workers' fork server (harness/run/forkserver/).
# Installs nothing: a missing toolchain is a one-line notice and exit 0, so
# callers decide whether that is a failure.
#
# Usage: scripts/build-native.sh [forkserver|addon|fuzzers|all] [--planted-bug]
#   fuzzers go to .ipcfuzz/native/ (with --planted-bug: .ipcfuzz/native/planted/,
#   built with -DIPCFUZZ_PLANTED_BUG). Environment: CLANG (default clang-16),
#   AFL_CC_FAST (default afl-clang-fast), NODE_GYP (a node-gyp to use).
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
planted=
[[ "${2:-}" == --planted-bug || "${1:-}" == --planted-bug ]] && planted=1
[[ "$what" == --planted-bug ]] && what=fuzzers
src=fuzzers/native
out=.ipcfuzz/native${planted:+/planted}
sources="$src/model.c $src/regexp.c"
defines=${planted:+-DIPCFUZZ_PLANTED_BUG}

node_gyp() {
  local npm_dir
  if [[ -n "${NODE_GYP:-}" ]]; then echo "$NODE_GYP"; return; fi
  if [[ -x node_modules/.bin/node-gyp ]]; then echo node_modules/.bin/node-gyp; return; fi
  # npm carries a node-gyp of its own.
  npm_dir=$(dirname "$(readlink -f "$(command -v npm 2>/dev/null || echo /nonexistent)")")/..
  [[ -f "$npm_dir/node_modules/node-gyp/bin/node-gyp.js" ]] && echo "node $npm_dir/node_modules/node-gyp/bin/node-gyp.js"
}

build_addon() {
  local gyp
  gyp=$(node_gyp)
  # node-gyp compiles with cc, links with c++ and runs gyp with python3.
  if [[ -z "$gyp" ]] || ! command -v cc >/dev/null || ! command -v c++ >/dev/null || ! command -v make >/dev/null ||
    ! command -v python3 >/dev/null; then
    echo "build-native: skipping the addon: needs node-gyp, cc, c++, make and python3"
    return
  fi
  # Headers come from the pinned binary: node-gyp downloads nothing.
  $gyp rebuild --silent --directory="$src" --nodedir="$PWD/node_modules/node-26.12.1"
  echo "build-native: $src/build/Release/ipcfuzz_model.node"
}

# One C file, preloaded and loaded as an addon (harness/run/forkserver/forkserver.c):
# no node-gyp, only cc and the pinned binary's headers.
build_forkserver() {
  local out=harness/run/forkserver/build
  if ! command -v cc >/dev/null; then
    echo "build-native: skipping the fork server: needs cc (workers then start as new node processes)"
    return
  fi
  mkdir -p "$out"
  cc -O2 -std=gnu11 -Wall -Wextra -shared -fPIC -I node_modules/node-26.12.1/include/node \
    -DNODE_GYP_MODULE_NAME=forkserver -o "$out/forkserver.node.tmp" harness/run/forkserver/forkserver.c -ldl
  mv "$out/forkserver.node.tmp" "$out/forkserver.node"
  echo "build-native: $out/forkserver.node"
}

build_fuzzers() {
  local clang=${CLANG:-clang-16} afl=${AFL_CC_FAST:-afl-clang-fast}
  if ! command -v "$clang" >/dev/null; then
    echo "build-native: skipping the fuzz targets: $clang is not installed (apt-get install clang-16 libclang-rt-16-dev)"
    return
  fi
  mkdir -p "$out"
  local flags="-g -O1 -std=gnu11 -Wall -Wextra -fno-omit-frame-pointer $defines"
  $clang $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -DIPCFUZZ_LIBFUZZER \
    -o "$out/fuzz_libfuzzer" "$src/fuzz_libfuzzer.c" "$src/mutator.c" $sources -lm
  echo "build-native: $out/fuzz_libfuzzer"
  if ! command -v "$afl" >/dev/null; then
    echo "build-native: skipping the AFL++ target: $afl is not installed (apt-get install afl++)"
    return
  fi
  AFL_USE_ASAN=1 AFL_USE_UBSAN=1 AFL_QUIET=1 $afl $flags -o "$out/fuzz_afl" "$src/fuzz_afl.c" \
    "$src/fuzz_libfuzzer.c" $sources -lm
  echo "build-native: $out/fuzz_afl"
  # The mutator runs inside afl-fuzz, without sanitizers: never with the planted bug.
  if [[ -z "$planted" ]]; then
    $clang -shared -fPIC -O2 -std=gnu11 -DIPCFUZZ_AFL -o "$out/libipcfuzz_mutator.so" "$src/mutator.c" $sources -lm
    echo "build-native: $out/libipcfuzz_mutator.so"
  fi
}

case "$what" in
  forkserver) build_forkserver ;;
  addon) build_addon ;;
  fuzzers) build_fuzzers ;;
  all) build_forkserver; build_addon; build_fuzzers ;;
  *) echo "usage: scripts/build-native.sh [forkserver|addon|fuzzers|all] [--planted-bug]" >&2; exit 2 ;;
esac
