/* Syntax check of a RegExp pattern, as V8 does when it deserializes a RegExp. */
#ifndef IPCFUZZ_REGEXP_H
#define IPCFUZZ_REGEXP_H

#include <stddef.h>
#include <stdint.h>

/* NULL when the pattern compiles, else V8's name for the problem. Unicode
 * property names (\p{...}) are checked for shape only. */
const char *ipcfuzz_regexp_error(const uint16_t *pattern, size_t length, int unicode, int unicode_sets);

#endif
