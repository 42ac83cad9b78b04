#!/bin/bash -eu
# ClusterFuzzLite entry point: the same build as OSS-Fuzz.
exec "$SRC/ipcfuzz/scripts/oss-fuzz-build.sh"
