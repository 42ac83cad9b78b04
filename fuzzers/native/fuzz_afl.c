/* AFL++ target in persistent mode. Given files as arguments it runs each
 * once instead, to replay a corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__AFL_FUZZ_INIT();

static int replay(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); return 1; }
  static uint8_t buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) {
    int failed = 0;
    for (int i = 1; i < argc; i++) failed |= replay(argv[i]);
    return failed;
  }
  __AFL_INIT();
  const uint8_t *buf = __AFL_FUZZ_TESTCASE_BUF;
  while (__AFL_LOOP(100000)) LLVMFuzzerTestOneInput(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
  return 0;
}
