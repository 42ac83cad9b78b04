#!/bin/bash -eu
# OSS-Fuzz entry point: the build lives in the project's tree.
exec "$SRC/ipcfuzz/scripts/oss-fuzz-build.sh"
