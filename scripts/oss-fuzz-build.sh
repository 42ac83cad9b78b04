#!/bin/bash -eu
# Builds ipcfuzz's fuzz targets the OSS-Fuzz way: $SRC/ipcfuzz in, $OUT out.
# Shared by oss-fuzz/build.sh and .clusterfuzzlite/build.sh.
#
# Each Jazzer.js target gets a wrapper in $OUT that runs it in the pinned Node
# binary that has the native codec, with --expose-internals (the standard
# compile_javascript_fuzzer wrapper runs the image's node, which has neither),
# plus <target>_seed_corpus.zip, <target>.dict and <target>.options.
# ClusterFuzz takes as a target an executable named [a-zA-Z0-9@_.-]+ with no
# extension whose bytes hold LLVMFuzzerTestOneInput: the wrappers say it in a
# comment, as compile_javascript_fuzzer's do. The Jazzer.js prebuilt needs
# glibc 2.38, so project.yaml asks for the Ubuntu 24.04 images (glibc 2.39).

project=ipcfuzz
cd "$SRC/$project"
# The development packages (test schemas, the bench's renderer) are not shipped.
npm ci --no-audit --no-fund --omit=dev

# The library a Jazzer.js target loads (its workers' FIFOs and their answers,
# and its event loop run between inputs, without which the value target's
# closed MessagePorts are never freed) and its workers' fork server; without
# a C compiler, a notice, and the targets run without them.
scripts/build-native.sh forkserver

# The project travels with its wrappers.
rm -rf "${OUT:?}/$project"
mkdir -p "$OUT/$project"
cp -r bin harness fuzzers properties corpus scripts node_modules package.json known-differences.json "$OUT/$project/"

for target in value frame stream; do
  name="ipcfuzz_$target"
  cat > "$OUT/$name" <<WRAPPER
#!/bin/sh
# LLVMFuzzerTestOneInput for fuzzer detection.
# libFuzzer flags and inputs pass through; fuzzers/jazzer/oss-fuzz.js says how a difference crashes.
this_dir=\$(dirname "\$0")
cd "\$this_dir/$project"
exec node_modules/node-26.12.1/bin/node --expose-internals --no-warnings fuzzers/jazzer/oss-fuzz.js \\
  fuzzers/jazzer/$target.js "\$@"
WRAPPER
  chmod +x "$OUT/$name"
  (cd "corpus/jazzer/$target" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  options="[libfuzzer]\nmax_len = 4096\ntimeout = 25"
  if [ -f "corpus/dict/$target.dict" ]; then
    cp "corpus/dict/$target.dict" "$OUT/$name.dict"
    options="$options\ndict = $name.dict"
  fi
  printf "$options\n" > "$OUT/$name.options"
done

# The C model's libFuzzer target, built with the platform's compiler and engine.
if [ -n "${LIB_FUZZING_ENGINE:-}" ]; then
  name=ipcfuzz_model
  for source in model regexp mutator fuzz_libfuzzer; do
    $CC $CFLAGS -std=gnu11 -DIPCFUZZ_LIBFUZZER -c "fuzzers/native/$source.c" -o "$WORK/$source.o"
  done
  $CXX $CXXFLAGS $LIB_FUZZING_ENGINE "$WORK"/{model,regexp,mutator,fuzz_libfuzzer}.o -lm -o "$OUT/$name"
  (cd corpus/native && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  cp fuzzers/native/ipc.dict "$OUT/$name.dict"
  printf '[libfuzzer]\nmax_len = 4096\ndict = %s.dict\n' "$name" > "$OUT/$name.options"
fi
