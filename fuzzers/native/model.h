/* A model of the `advanced` IPC wire format of Node.js child_process:
 * [uint32 BE payload length][V8 ValueSerializer payload], with
 * ArrayBufferViews as host objects (IPC tag 0, view type index, byteLength,
 * raw bytes) and other host objects as IPC tag 1 followed by an object.
 *
 * It decodes the way V8's ValueDeserializer and the JavaScript IPC codec of
 * Node <= 26.3 do, without V8: every branch is a rule of the format. An
 * accepted frame yields the canonical tree of harness/oracle/canonical.js as JSON;
 * a rejected one a reason category and the offset where decoding stopped. */
#ifndef IPCFUZZ_MODEL_H
#define IPCFUZZ_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a byte range of the frame is, reported to an optional trace callback
 * while decoding (the structure-aware mutator and coverage tools use it). */
enum ipcfuzz_span {
  IPCFUZZ_SPAN_PREFIX,     /* the 4-byte length prefix */
  IPCFUZZ_SPAN_HEADER,     /* 0xff and the version varint */
  IPCFUZZ_SPAN_TAG,        /* a serialization tag byte (value = tag) */
  IPCFUZZ_SPAN_VARINT,     /* an operand varint (value = decoded value) */
  IPCFUZZ_SPAN_LENGTH,     /* a varint counting the raw bytes that follow */
  IPCFUZZ_SPAN_RAW,        /* raw bytes: string data, digits, doubles, buffer bytes */
  IPCFUZZ_SPAN_HOST_TAG,   /* IPC host-object tag (value = tag) */
  IPCFUZZ_SPAN_VIEW_INDEX, /* IPC view type index (value = index) */
  IPCFUZZ_SPAN_SUBTAG,     /* error or 'V' view sub-tag (value = sub-tag) */
  IPCFUZZ_SPAN_VALUE       /* a whole value, from its tag to its last byte */
};

typedef void (*ipcfuzz_trace_fn)(void *ctx, enum ipcfuzz_span kind, size_t start, size_t end,
                                 uint64_t value, int depth);

typedef struct ipcfuzz_result {
  int ok;                /* 1: accepted; 0: rejected */
  const char *reason;    /* category when rejected (static string) */
  char detail[96];       /* a short explanation of the reason */
  size_t offset;         /* frame offset where decoding stopped (rejected) */
  size_t frame_end;      /* 4 + announced payload length (bytes of this frame) */
  size_t value_end;      /* frame offset after the value (accepted) */
  size_t trailing;       /* payload bytes after the value, which V8 ignores */
  uint32_t version;      /* V8 format version of the header */
  char *json;            /* canonical tree (accepted); free with ipcfuzz_result_free */
} ipcfuzz_result;

/* Decodes the frame at the start of data[0..size). Bytes past the frame are
 * not read (they belong to the next frame). Returns result->ok. */
int ipcfuzz_decode_frame(const uint8_t *data, size_t size, ipcfuzz_result *result,
                         ipcfuzz_trace_fn trace, void *trace_ctx);

void ipcfuzz_result_free(ipcfuzz_result *result);

/* Nesting deeper than this is rejected with reason "depth" (V8 stops at its
 * stack limit instead, which depends on the process). */
#define IPCFUZZ_MAX_DEPTH 256

#ifdef __cplusplus
}
#endif

#endif
