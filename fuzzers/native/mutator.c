/* Structure-aware mutation of IPC frames. The model parses the first frame
 * (read with a length prefix that fits), one to three structural elements
 * change (a tag, an operand varint, a length with or without its bytes, a
 * host-object tag, a view type index, a header, padding, a whole value
 * spliced in from this or another input, wrapped or dropped), and the frame
 * is written again, usually with a consistent length prefix and sometimes
 * with a deliberately wrong one. Frames after the first are kept.
 *
 * Front ends: libFuzzer (LLVMFuzzerCustomMutator and CustomCrossOver, with
 * -DIPCFUZZ_LIBFUZZER) and an AFL++ custom mutator library (-DIPCFUZZ_AFL). */
#include <stdlib.h>
#include <string.h>

#include "model.h"

typedef struct { enum ipcfuzz_span kind; size_t start, end; uint64_t value; } seg;
typedef struct { seg *s; size_t n, cap; } seglist;
typedef struct { uint8_t *p; size_t n, cap; } vec;
typedef struct { uint32_t state; } rng;

static const uint8_t kTags[] = {
  0x00, '?', '-', '_', '0', 'T', 'F', 'I', 'U', 'N', 'Z', 'S', '"', 'c', '^', 'o', '{', 'a', '@', 'A', '$',
  'D', 'y', 'x', 'n', 'z', 's', 'R', ';', ':', '\'', ',', 'B', 'C', '~', 't', 'V', 'u', 'p', 'w', 'm', '\\',
  'r', 0xff, 0x01, 0x80 };
static const uint8_t kSubtags[] = { 'E', 'R', 'F', 'S', 'T', 'U', 'm', 'c', 's', '.', 'b', 'B', 'C', 'w',
                                    'W', 'd', 'D', 'h', 'f', 'F', 'q', 'Q', '?' };
static const uint32_t kInteresting[] = { 0, 1, 2, 3, 4, 7, 8, 9, 12, 13, 14, 15, 16, 127, 128, 255, 256,
                                         0x3fff, 0x4000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };
#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint32_t next(rng *r) {
  uint32_t x = r->state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return r->state = x;
}

static uint32_t below(rng *r, uint32_t n) { return n ? next(r) % n : 0; }

static void collect(void *ctx, enum ipcfuzz_span kind, size_t start, size_t end, uint64_t value, int depth) {
  (void)depth;
  seglist *l = ctx;
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->s = realloc(l->s, l->cap * sizeof *l->s);
    if (!l->s) abort();
  }
  l->s[l->n++] = (seg){ kind, start - 4, end - 4, value };  /* payload offsets */
}

/* The spans of a payload, decoded behind a prefix that fits it. */
static seglist parse(const uint8_t *payload, size_t n) {
  seglist l = { NULL, 0, 0 };
  uint8_t *frame = malloc(n + 4);
  if (!frame) abort();
  frame[0] = (uint8_t)(n >> 24); frame[1] = (uint8_t)(n >> 16); frame[2] = (uint8_t)(n >> 8); frame[3] = (uint8_t)n;
  memcpy(frame + 4, payload, n);
  ipcfuzz_result result;
  ipcfuzz_decode_frame(frame, n + 4, &result, collect, &l);
  ipcfuzz_result_free(&result);
  free(frame);
  return l;
}

static void splice(vec *v, size_t start, size_t end, const uint8_t *with, size_t n) {
  size_t need = v->n - (end - start) + n;
  if (need > v->cap) {
    v->cap = need * 2 + 16;
    v->p = realloc(v->p, v->cap);
    if (!v->p) abort();
  }
  memmove(v->p + start + n, v->p + end, v->n - end);
  if (n) memmove(v->p + start, with, n);
  v->n = need;
}

static size_t encode_varint(uint8_t out[16], uint64_t value, int overlong) {
  size_t n = 0;
  do {
    out[n++] = (uint8_t)((value & 0x7f) | (value >= 0x80 || overlong ? 0x80 : 0));
    value >>= 7;
  } while (value);
  while (overlong-- > 0) out[n++] = overlong ? 0x80 : 0x00;
  return n;
}

/* A random span of one of the given kinds, or NULL. */
static const seg *pick(rng *r, const seglist *l, unsigned kinds) {
  size_t count = 0;
  for (size_t i = 0; i < l->n; i++) count += (kinds >> l->s[i].kind) & 1;
  if (!count) return NULL;
  size_t k = below(r, (uint32_t)count);
  for (size_t i = 0; i < l->n; i++) {
    if (((kinds >> l->s[i].kind) & 1) && k-- == 0) return &l->s[i];
  }
  return NULL;
}

#define KIND(k) (1u << IPCFUZZ_SPAN_##k)
#define OPERANDS (KIND(VARINT) | KIND(LENGTH) | KIND(HOST_TAG) | KIND(VIEW_INDEX) | KIND(SUBTAG))

static uint64_t new_operand(rng *r, const seg *s) {
  switch (s->kind) {
    case IPCFUZZ_SPAN_HOST_TAG: return below(r, 4) ? below(r, 3) : kInteresting[below(r, COUNT(kInteresting))];
    case IPCFUZZ_SPAN_VIEW_INDEX: return below(r, 4) ? below(r, 15) : kInteresting[below(r, COUNT(kInteresting))];
    case IPCFUZZ_SPAN_SUBTAG: return kSubtags[below(r, COUNT(kSubtags))];
    default:
      if (below(r, 2)) return (uint32_t)(s->value + below(r, 5) - 2);
      return kInteresting[below(r, COUNT(kInteresting))];
  }
}

/* One structural change; returns 0 when the chosen kind had nothing to change. */
static int mutate_once(rng *r, vec *v, const seglist *l, const uint8_t *other, const seglist *lo) {
  uint8_t bytes[16];
  const seg *s, *t;
  switch (below(r, 10)) {
    case 0:  /* another tag */
      if (!(s = pick(r, l, KIND(TAG)))) return 0;
      v->p[s->start] = kTags[below(r, COUNT(kTags))];
      return 1;
    case 1: case 2:  /* another operand: tag, index, count, length (bytes unchanged) */
      if (!(s = pick(r, l, OPERANDS))) return 0;
      splice(v, s->start, s->end, bytes, encode_varint(bytes, new_operand(r, s), below(r, 8) ? 0 : 1 + below(r, 3)));
      return 1;
    case 3: {  /* a length and its bytes, kept consistent */
      if (!(s = pick(r, l, KIND(LENGTH)))) return 0;
      size_t have = 0;
      for (size_t i = 0; i < l->n; i++) if (l->s[i].kind == IPCFUZZ_SPAN_RAW && l->s[i].start == s->end) have = l->s[i].end - l->s[i].start;
      size_t want = below(r, 2) ? have + below(r, 9) : below(r, (uint32_t)have + 1);
      if (want > have) {
        uint8_t fill[8];
        for (size_t i = 0; i < want - have; i++) fill[i] = (uint8_t)next(r);
        splice(v, s->end + have, s->end + have, fill, want - have);
      } else {
        splice(v, s->end + want, s->end + have, NULL, 0);
      }
      splice(v, s->start, s->end, bytes, encode_varint(bytes, want, 0));
      return 1;
    }
    case 4: case 5: {  /* a value replaced by another, from this input or the other */
      if (!(s = pick(r, l, KIND(VALUE)))) return 0;
      int from_other = other && below(r, 2);
      if (!(t = pick(r, from_other ? lo : l, KIND(VALUE)))) return 0;
      size_t n = t->end - t->start;
      uint8_t *copy = malloc(n ? n : 1);
      memcpy(copy, (from_other ? other : v->p) + t->start, n);
      splice(v, s->start, s->end, copy, n);
      free(copy);
      return 1;
    }
    case 6: {  /* a value wrapped in a copied host object or a one-element array, or dropped */
      if (!(s = pick(r, l, KIND(VALUE)))) return 0;
      static const uint8_t host[] = { '\\', 1 }, array[] = { 'A', 1 }, array_end[] = { '$', 0, 1 };
      switch (below(r, 3)) {
        case 0: splice(v, s->start, s->start, host, sizeof host); break;
        case 1:
          splice(v, s->end, s->end, array_end, sizeof array_end);
          splice(v, s->start, s->start, array, sizeof array);
          break;
        default: splice(v, s->start, s->end, NULL, 0); break;
      }
      return 1;
    }
    case 7: {  /* padding before a tag */
      if (!(s = pick(r, l, KIND(TAG)))) return 0;
      static const uint8_t zeros[3] = { 0, 0, 0 };
      splice(v, s->start, s->start, zeros, 1 + below(r, 3));
      return 1;
    }
    case 8: {  /* the header */
      static const uint8_t versions[] = { 13, 14, 15, 15, 12, 16, 0 };
      uint8_t header[2] = { 0xff, versions[below(r, COUNT(versions))] };
      s = pick(r, l, KIND(HEADER));
      if (s) splice(v, s->start, s->end, header, below(r, 8) ? 2 : 0);
      else splice(v, 0, 0, header, 2);
      return 1;
    }
    default:  /* a byte of the payload */
      if (!v->n) return 0;
      v->p[below(r, (uint32_t)v->n)] ^= (uint8_t)(1u << below(r, 8));
      return 1;
  }
}

/* Mutates the frames in data[0..size) in place; returns the new size. */
static size_t mutate(uint8_t *data, size_t size, size_t max_size, uint32_t seed, const uint8_t *other,
                     size_t other_size) {
  rng r = { seed ? seed : 0x9e3779b9u };
  if (max_size < 8) return size < max_size ? size : max_size;
  size_t payload = 0, tail = size;
  if (size >= 4) {
    uint32_t announced = (uint32_t)data[0] << 24 | data[1] << 16 | data[2] << 8 | data[3];
    payload = announced < size - 4 ? announced : size - 4;
    tail = 4 + payload;
  }
  vec v = { malloc(payload + 64), payload, payload + 64 };
  if (!v.p) abort();
  if (payload) memcpy(v.p, data + 4, payload);
  if (!v.n) {  /* nothing to parse: start from a header and a tag */
    uint8_t seed_bytes[3] = { 0xff, 15, kTags[below(&r, COUNT(kTags))] };
    splice(&v, 0, 0, seed_bytes, 3);
  }
  const uint8_t *other_payload = NULL;
  seglist lo = { NULL, 0, 0 };
  if (other && other_size > 4) {
    uint32_t announced = (uint32_t)other[0] << 24 | other[1] << 16 | other[2] << 8 | other[3];
    other_payload = other + 4;
    lo = parse(other_payload, announced < other_size - 4 ? announced : other_size - 4);
  }
  for (int rounds = 1 + (int)below(&r, 3), tries = 0; rounds > 0 && tries < 16; tries++) {
    seglist l = parse(v.p, v.n);
    rounds -= mutate_once(&r, &v, &l, other_payload, &lo);
    free(l.s);
  }
  free(lo.s);

  uint64_t prefix = v.n;
  int consistent = 0;
  switch (below(&r, 16)) {  /* now and then, a length prefix that lies */
    case 0: prefix += 1 + below(&r, 4); break;
    case 1: prefix = prefix ? prefix - 1 : 0; break;
    case 2: prefix = 0x80000000u + below(&r, 16); break;
    case 3: prefix = 0xffffffffu; break;
    default: consistent = 1; break;
  }
  size_t tail_n = size - tail;
  if (4 + v.n > max_size) {
    v.n = max_size - 4;
    tail_n = 0;
    if (consistent) prefix = v.n;
  } else if (4 + v.n + tail_n > max_size) {
    tail_n = max_size - 4 - v.n;
  }
  memmove(data + 4 + v.n, data + tail, tail_n);
  memcpy(data + 4, v.p, v.n);
  data[0] = (uint8_t)(prefix >> 24); data[1] = (uint8_t)(prefix >> 16); data[2] = (uint8_t)(prefix >> 8); data[3] = (uint8_t)prefix;
  free(v.p);
  return 4 + v.n + tail_n;
}

#ifdef IPCFUZZ_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Half of the time libFuzzer's own byte-level mutations, which find what a
 * grammar would not think of. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 2) return LLVMFuzzerMutate(data, size, max_size);
  return mutate(data, size, max_size, seed, NULL, 0);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed) {
  size_t n = size1 < max_out_size ? size1 : max_out_size;
  memcpy(out, data1, n);
  return mutate(out, n, max_out_size, seed, data2, size2);
}
#endif

#ifdef IPCFUZZ_AFL
typedef struct { rng r; uint8_t *buf; size_t cap; } afl_state;

void *afl_custom_init(void *afl, unsigned int seed) {
  (void)afl;
  afl_state *state = calloc(1, sizeof *state);
  if (state) state->r.state = seed ? seed : 1;
  return state;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size) {
  afl_state *state = data;
  size_t n = buf_size < max_size ? buf_size : max_size;
  if (state->cap < max_size) {
    state->buf = realloc(state->buf, max_size);
    if (!state->buf) abort();
    state->cap = max_size;
  }
  memcpy(state->buf, buf, n);
  *out_buf = state->buf;
  return mutate(state->buf, n, max_size, next(&state->r), add_buf, add_buf_size);
}

void afl_custom_deinit(void *data) {
  afl_state *state = data;
  free(state->buf);
  free(state);
}
#endif
