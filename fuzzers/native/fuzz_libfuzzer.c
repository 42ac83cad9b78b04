/* libFuzzer target (also the body of the AFL++ target): the input is a byte
 * stream, decoded frame after frame as a framer would cut it. */
#include <stddef.h>
#include <stdint.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t at = 0;
  do {
    ipcfuzz_result result;
    ipcfuzz_decode_frame(data + at, size - at, &result, NULL, NULL);
    ipcfuzz_result_free(&result);
    if (result.frame_end == 0 || result.frame_end > size - at) break;
    at += result.frame_end;
  } while (at < size);
  return 0;
}
