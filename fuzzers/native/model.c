/* The wire-format model: see model.h. Section names follow V8's
 * src/objects/value-serializer.cc (ValueDeserializer) and Node's JavaScript
 * IPC codec (lib/v8.js, lib/internal/child_process/serialization.js). */
#include "model.h"
#include "regexp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define kLatestVersion 15
#define kMinVersion 13         /* Node's deserializer refuses the legacy formats */
#define kMaxDenseLength 134217725u
#define kMaxEmitDepth 4096

/* ---------- values ---------- */

typedef struct { uint16_t *s; size_t n; } u16s;

enum { N_UNDEFINED, N_NULL, N_BOOL, N_NUMBER, N_BIGINT, N_STRING, N_OBJECT, N_ARRAY, N_MAP,
       N_SET, N_DATE, N_REGEXP, N_BOXED, N_ERROR, N_ARRAYBUFFER, N_VIEW };
enum { B_FRAME, B_EXACT, B_SLICE, B_COPY };

typedef struct node node;
typedef struct { u16s key; int is_index; uint32_t index; node *value; } prop;

struct node {
  int t;
  int canon_id;             /* id in the canonical tree, -1 until emitted */
  int boolean;
  double num;               /* number, date */
  u16s str;                 /* string */
  char *bigint;             /* decimal digits of a bigint */
  prop *props; size_t nprops, cap_props;
  node **items; size_t nitems, cap_items;  /* map: key, value, ...; set: values */
  uint64_t length;          /* array length */
  node *inner;              /* boxed primitive, regexp source, error message */
  node *cause;
  int has_cause, has_stack, error_type;
  uint32_t flags;           /* regexp flags */
  const uint8_t *bytes; size_t byte_length;
  uint32_t max_byte_length; int resizable;
  int view_index, is_buffer, backing; uint64_t view_length; size_t byte_offset;
};

/* IPC view type index -> constructor, element size. */
static const char *const kViewNames[] = {
  "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
  "Uint32Array", "Float32Array", "Float64Array", "DataView", "Buffer", "BigInt64Array",
  "BigUint64Array", "Float16Array" };
static const int kViewWidths[] = { 1, 1, 1, 2, 2, 4, 4, 4, 8, 1, 1, 8, 8, 2 };
#define kViewIndexCount 14
#define kDataViewIndex 9
#define kBufferIndex 10

static const char *const kErrorNames[] = { "Error", "EvalError", "RangeError", "ReferenceError",
                                           "SyntaxError", "TypeError", "URIError" };

/* ---------- decoder state ---------- */

typedef struct {
  const uint8_t *data;      /* the whole frame */
  size_t pos, end;          /* end of the payload */
  uint32_t version;
  int broken13;             /* version 13 retry: 'V' views carry flags (crbug.com/1284506) */
  int exception;            /* V8 would have thrown: no version 13 retry */
  int depth;
  node **ids; size_t ids_cap; uint32_t next_id;
  node **all; size_t nall, cap_all;
  const char *reason; size_t reason_at; char detail[96];
  ipcfuzz_trace_fn trace; void *trace_ctx;
} dec;

static void *grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return p;
  size_t cap2 = *cap ? *cap * 2 : 8;
  while (cap2 < need) cap2 *= 2;
  void *q = realloc(p, cap2 * size);
  if (!q) abort();
  *cap = cap2;
  return q;
}

static node *fail(dec *d, size_t at, const char *reason, const char *fmt, ...) {
  if (d->reason) return NULL;  /* the innermost failure names the problem */
  d->reason = reason;
  d->reason_at = at;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->detail, sizeof d->detail, fmt, ap);
  va_end(ap);
  return NULL;
}

static void span(dec *d, enum ipcfuzz_span kind, size_t start, size_t end, uint64_t value) {
  if (d->trace) d->trace(d->trace_ctx, kind, start, end, value, d->depth);
}

static node *mk(dec *d, int t) {
  node *n = calloc(1, sizeof *n);
  if (!n) abort();
  n->t = t;
  n->canon_id = -1;
  d->all = grow(d->all, &d->cap_all, d->nall + 1, sizeof *d->all);
  d->all[d->nall++] = n;
  return n;
}

static void free_nodes(dec *d) {
  for (size_t i = 0; i < d->nall; i++) {
    node *n = d->all[i];
    for (size_t j = 0; j < n->nprops; j++) free(n->props[j].key.s);
    free(n->props);
    free(n->items);
    free(n->str.s);
    free(n->bigint);
    free(n);
  }
  free(d->all);
  free(d->ids);
}

static int is_object(const node *n) { return n->t >= N_OBJECT; }

/* ---------- reading bytes (ReadTag, ReadVarint, ReadRawBytes) ---------- */

/* A varint into a T of `bits` bits: V8 reads at most sizeof(T) + 1 bytes and
 * drops the bits that do not fit; a varint cut off by the end fails. */
static int varint(dec *d, int bits, uint32_t *out, enum ipcfuzz_span kind) {
  size_t start = d->pos;
  uint64_t v = 0;
  int shift = 0;
  for (;;) {
    if (d->pos >= d->end) {
      fail(d, d->pos, "truncated-payload", "a varint runs past the payload");
      return 0;
    }
    uint8_t b = d->data[d->pos];
    if (shift >= bits) break;  /* continuation after sizeof(T) + 1 bytes: not read */
    v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
    d->pos++;
    if (!(b & 0x80)) break;
  }
  *out = bits == 8 ? (uint8_t)v : (uint32_t)v;
  span(d, kind, start, d->pos, *out);
  return 1;
}

static int raw(dec *d, size_t n, const uint8_t **out) {
  if (n > d->end - d->pos) {
    fail(d, d->pos, "truncated-payload", "%zu bytes announced, %zu left", n, d->end - d->pos);
    return 0;
  }
  *out = d->data + d->pos;
  span(d, IPCFUZZ_SPAN_RAW, d->pos, d->pos + n, n);
  d->pos += n;
  return 1;
}

static size_t skip_padding(const dec *d, size_t at) {
  while (at < d->end && d->data[at] == 0x00) at++;
  return at;
}

static int peek_tag(const dec *d, uint8_t *tag) {
  size_t at = skip_padding(d, d->pos);
  if (at >= d->end) return 0;
  *tag = d->data[at];
  return 1;
}

static int read_tag(dec *d, uint8_t *tag) {
  d->pos = skip_padding(d, d->pos);
  if (d->pos >= d->end) {
    fail(d, d->pos, "truncated-payload", "expected a tag");
    return 0;
  }
  *tag = d->data[d->pos];
  span(d, IPCFUZZ_SPAN_TAG, d->pos, d->pos + 1, *tag);
  d->pos++;
  return 1;
}

/* ---------- the object id table (AddObjectWithID, GetObjectWithID) ---------- */

static void add_id(dec *d, uint32_t id, node *n) {
  size_t cap = d->ids_cap;
  d->ids = grow(d->ids, &d->ids_cap, (size_t)id + 1, sizeof *d->ids);
  memset(d->ids + cap, 0, (d->ids_cap - cap) * sizeof *d->ids);
  d->ids[id] = n;
}

/* ---------- strings and numbers as JavaScript sees them ---------- */

static void u16_push(u16s *s, size_t *cap, uint16_t c) {
  s->s = grow(s->s, cap, s->n + 1, sizeof *s->s);
  s->s[s->n++] = c;
}

static u16s u16_ascii(const char *text) {
  u16s s = { NULL, 0 };
  size_t cap = 0;
  for (; *text; text++) u16_push(&s, &cap, (uint8_t)*text);
  return s;
}

static int u16_eq(u16s a, u16s b) {
  return a.n == b.n && (a.n == 0 || memcmp(a.s, b.s, a.n * sizeof *a.s) == 0);
}

/* WHATWG UTF-8 decoding: each maximal invalid subpart becomes U+FFFD. */
static u16s utf8_decode(const uint8_t *p, size_t n) {
  u16s s = { NULL, 0 };
  size_t cap = 0;
  uint32_t cp = 0;
  int needed = 0, seen = 0;
  uint8_t lower = 0x80, upper = 0xbf;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = p[i];
    if (needed == 0) {
      if (b <= 0x7f) u16_push(&s, &cap, b);
      else if (b >= 0xc2 && b <= 0xdf) { needed = 1; cp = b & 0x1f; }
      else if (b >= 0xe0 && b <= 0xef) {
        if (b == 0xe0) lower = 0xa0;
        if (b == 0xed) upper = 0x9f;
        needed = 2; cp = b & 0x0f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (b == 0xf0) lower = 0x90;
        if (b == 0xf4) upper = 0x8f;
        needed = 3; cp = b & 0x07;
      } else u16_push(&s, &cap, 0xfffd);
      continue;
    }
    if (b < lower || b > upper) {
      cp = 0; needed = seen = 0; lower = 0x80; upper = 0xbf;
      u16_push(&s, &cap, 0xfffd);
      i--;  /* the byte starts over */
      continue;
    }
    lower = 0x80; upper = 0xbf;
    cp = (cp << 6) | (b & 0x3f);
    if (++seen < needed) continue;
    if (cp > 0xffff) {
      u16_push(&s, &cap, (uint16_t)(0xd800 + ((cp - 0x10000) >> 10)));
      u16_push(&s, &cap, (uint16_t)(0xdc00 + ((cp - 0x10000) & 0x3ff)));
    } else u16_push(&s, &cap, (uint16_t)cp);
    cp = 0; needed = seen = 0;
  }
  if (needed) u16_push(&s, &cap, 0xfffd);
  return s;
}

/* Number::toString(10): the shortest digits that round-trip, laid out as
 * ECMA-262 says. printf's correctly rounded %.*e finds them. */
static void js_number(double x, char *out) {
  if (isnan(x)) { strcpy(out, "NaN"); return; }
  if (x == 0) { strcpy(out, "0"); return; }
  if (isinf(x)) { strcpy(out, x > 0 ? "Infinity" : "-Infinity"); return; }
  if (x < 0) { *out++ = '-'; x = -x; }
  char buf[40], digits[20];
  for (int precision = 0; precision < 17; precision++) {
    snprintf(buf, sizeof buf, "%.*e", precision, x);
    if (strtod(buf, NULL) == x) break;
  }
  int k = 0;
  char *p = buf;
  for (; *p != 'e'; p++) if (*p != '.') digits[k++] = *p;
  digits[k] = 0;
  int n = atoi(p + 1) + 1;  /* x = 0.digits * 10^n */
  if (k <= n && n <= 21) {
    sprintf(out, "%s%0*d", digits, n - k, 0);
    if (n == k) out[k] = 0;
  } else if (0 < n && n <= 21) {
    sprintf(out, "%.*s.%s", n, digits, digits + n);
  } else if (-6 < n && n <= 0) {
    sprintf(out, "0.%0*d%s", -n, 0, digits);
    if (n == 0) sprintf(out, "0.%s", digits);
  } else {
    int e = n - 1;
    if (k == 1) sprintf(out, "%ce%c%d", digits[0], e < 0 ? '-' : '+', abs(e));
    else sprintf(out, "%c.%se%c%d", digits[0], digits + 1, e < 0 ? '-' : '+', abs(e));
  }
}

/* Little-endian magnitude bytes -> decimal, negative when sign is set. */
static char *bigint_decimal(const uint8_t *p, size_t n, int sign) {
  while (n && p[n - 1] == 0) n--;
  if (n == 0) return strdup("0");
  size_t nl = (n + 3) / 4;
  uint32_t *limbs = calloc(nl, sizeof *limbs);
  for (size_t i = 0; i < n; i++) limbs[i / 4] |= (uint32_t)p[i] << (8 * (i % 4));
  size_t cap = n * 3 + 3, len = 0;  /* 256^n < 10^(2.41n) */
  char *rev = malloc(cap);
  while (nl) {
    uint64_t rem = 0;
    for (size_t i = nl; i-- > 0;) {
      uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = (uint32_t)(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    while (nl && limbs[nl - 1] == 0) nl--;
    for (int j = 0; j < 9 && (nl || rem); j++) { rev[len++] = (char)('0' + rem % 10); rem /= 10; }
  }
  char *out = malloc(len + 2);
  size_t o = 0;
  if (sign) out[o++] = '-';
  while (len) out[o++] = rev[--len];
  out[o] = 0;
  free(rev);
  free(limbs);
  return out;
}

/* Date: TimeClip. */
static double time_clip(double t) {
  if (!isfinite(t) || fabs(t) > 8.64e15) return NAN;
  return trunc(t) + 0.0;
}

/* ---------- property keys (PropertyKey, IsValidObjectKey) ---------- */

static int valid_key(const node *k) { return k->t == N_STRING || k->t == N_NUMBER; }

/* The key's string, and whether it is an array index (an element). */
static prop make_key(const node *k) {
  prop p = { { NULL, 0 }, 0, 0, NULL };
  if (k->t == N_NUMBER) {
    char buf[40];
    js_number(k->num, buf);
    p.key = u16_ascii(buf);
  } else {
    p.key.n = k->str.n;
    p.key.s = malloc((k->str.n ? k->str.n : 1) * sizeof *p.key.s);
    if (k->str.n) memcpy(p.key.s, k->str.s, k->str.n * sizeof *p.key.s);
  }
  /* "0" or [1-9][0-9]* up to 2^32 - 2 */
  if (p.key.n >= 1 && p.key.n <= 10 && (p.key.s[0] != '0' || p.key.n == 1)) {
    uint64_t v = 0;
    size_t i = 0;
    for (; i < p.key.n && p.key.s[i] >= '0' && p.key.s[i] <= '9'; i++) v = v * 10 + (p.key.s[i] - '0');
    if (i == p.key.n && v <= 4294967294u) { p.is_index = 1; p.index = (uint32_t)v; }
  }
  return p;
}

static prop index_key(uint32_t index) {
  char buf[12];
  snprintf(buf, sizeof buf, "%u", index);
  prop p = { u16_ascii(buf), 1, index, NULL };
  return p;
}

static void append_prop(node *o, prop p) {
  o->props = grow(o->props, &o->cap_props, o->nprops + 1, sizeof *o->props);
  o->props[o->nprops++] = p;
  if (o->t == N_ARRAY && p.is_index && (uint64_t)p.index + 1 > o->length) o->length = (uint64_t)p.index + 1;
}

/* DefineOwnPropertyIgnoreAttributes after a LookupIterator that must find nothing. */
static int define_prop(node *o, const node *key, node *value) {
  prop p = make_key(key);
  static const uint16_t kLength[] = { 'l', 'e', 'n', 'g', 't', 'h' };
  int clash = o->t == N_ARRAY && p.key.n == 6 && memcmp(p.key.s, kLength, sizeof kLength) == 0;
  for (size_t i = 0; i < o->nprops && !clash; i++) {
    clash = p.is_index ? (o->props[i].is_index && o->props[i].index == p.index)
                       : (!o->props[i].is_index && u16_eq(o->props[i].key, p.key));
  }
  if (clash) { free(p.key.s); return 0; }
  p.value = value;
  append_prop(o, p);
  return 1;
}

/* ---------- SameValueZero, for Map and Set ---------- */

static int same_value_zero(const node *a, const node *b) {
  if (a == b) return 1;
  if (a->t != b->t || is_object(a)) return 0;
  switch (a->t) {
    case N_BOOL: return a->boolean == b->boolean;
    case N_NUMBER: return a->num == b->num || (isnan(a->num) && isnan(b->num));
    case N_STRING: return u16_eq(a->str, b->str);
    case N_BIGINT: return strcmp(a->bigint, b->bigint) == 0;
    default: return 1;  /* undefined, null */
  }
}

static void push_item(node *c, node *v) {
  c->items = grow(c->items, &c->cap_items, c->nitems + 1, sizeof *c->items);
  c->items[c->nitems++] = v;
}

/* ---------- ValueDeserializer ---------- */

static node *read_object(dec *d);
static node *read_object_wrapper(dec *d);

static node *number(dec *d, double v) {
  node *n = mk(d, N_NUMBER);
  n->num = v;
  return n;
}

static int read_double(dec *d, double *out) {
  const uint8_t *p;
  if (!raw(d, 8, &p)) return 0;
  memcpy(out, p, 8);  /* host byte order, as V8 writes it: little-endian here */
  if (isnan(*out)) *out = NAN;
  return 1;
}

static node *read_string(dec *d, uint8_t tag) {
  size_t at = d->pos;
  uint32_t len;
  const uint8_t *p;
  if (!varint(d, 32, &len, IPCFUZZ_SPAN_LENGTH)) return NULL;
  if (tag == 'c' && len % 2) return fail(d, at, "bad-string", "two-byte string of odd byteLength %u", len);
  if (!raw(d, len, &p)) return NULL;
  node *n = mk(d, N_STRING);
  if (tag == 'S') {
    n->str = utf8_decode(p, len);
    return n;
  }
  n->str.n = tag == 'c' ? len / 2 : len;
  n->str.s = malloc((n->str.n ? n->str.n : 1) * sizeof *n->str.s);
  for (size_t i = 0; i < n->str.n; i++) {
    n->str.s[i] = tag == 'c' ? (uint16_t)(p[2 * i] | p[2 * i + 1] << 8) : p[i];
  }
  return n;
}

/* ReadString: any value, which must turn out to be a string. */
static node *read_string_value(dec *d, const char *what) {
  size_t at = skip_padding(d, d->pos);
  node *n = read_object(d);
  if (n && n->t != N_STRING) return fail(d, at, "bad-string", "%s is not a string", what);
  return n;
}

static node *read_bigint(dec *d) {
  size_t at = d->pos;
  uint32_t bitfield;
  const uint8_t *p;
  if (!varint(d, 32, &bitfield, IPCFUZZ_SPAN_LENGTH)) return NULL;
  size_t length = (bitfield >> 1) & 0x3fffffff;
  if (!raw(d, length, &p)) return NULL;
  if (length == 0 && (bitfield & 1)) return fail(d, at, "bad-bigint", "-0n");
  node *n = mk(d, N_BIGINT);
  n->bigint = bigint_decimal(p, length, bitfield & 1);
  return n;
}

static node *get_object(dec *d, size_t at, uint32_t id) {
  if (id < d->ids_cap && d->ids[id]) return d->ids[id];
  return fail(d, at, "bad-reference", "object id %u is %s", id,
              id < d->next_id ? "not finished" : "not assigned");
}

/* Properties up to end_tag (ReadJSObjectProperties); returns the count or -1. */
static int64_t read_properties(dec *d, node *o, uint8_t end_tag) {
  int64_t count = 0;
  for (;;) {
    uint8_t tag;
    if (!peek_tag(d, &tag)) {
      fail(d, d->end, "truncated-payload", "expected a property or the end tag");
      return -1;
    }
    if (tag == end_tag) {
      read_tag(d, &tag);
      return count;
    }
    size_t at = skip_padding(d, d->pos);
    node *key = read_object(d);
    if (!key) return -1;
    if (!valid_key(key)) {
      fail(d, at, "bad-key", "a property key must be a string or a number");
      return -1;
    }
    node *value = read_object(d);
    if (!value) return -1;
    if (!define_prop(o, key, value)) {
      fail(d, at, "duplicate-key", "the key is already an own property");
      return -1;
    }
    count++;
  }
}

/* The counts after an end tag must match what was read. */
static int check_count(dec *d, const char *what, uint64_t actual) {
  size_t at = d->pos;
  uint32_t expected;
  if (!varint(d, 32, &expected, IPCFUZZ_SPAN_VARINT)) return 0;
  if (expected != actual) {
    fail(d, at, "count-mismatch", "%s %u announced, %llu read", what, expected, (unsigned long long)actual);
    return 0;
  }
  return 1;
}

static node *read_js_object(dec *d) {
  node *o = mk(d, N_OBJECT);
  add_id(d, d->next_id++, o);
  int64_t n = read_properties(d, o, '{');
  if (n < 0 || !check_count(d, "properties", (uint64_t)n)) return NULL;
  return o;
}

static node *read_sparse_array(dec *d) {
  uint32_t length;
  if (!varint(d, 32, &length, IPCFUZZ_SPAN_VARINT)) return NULL;
  node *a = mk(d, N_ARRAY);
  a->length = length;
  add_id(d, d->next_id++, a);
  int64_t n = read_properties(d, a, '@');
  if (n < 0 || !check_count(d, "properties", (uint64_t)n) || !check_count(d, "length", length)) return NULL;
  return a;
}

static node *read_dense_array(dec *d) {
  size_t at = d->pos;
  uint32_t length;
  if (!varint(d, 32, &length, IPCFUZZ_SPAN_VARINT)) return NULL;
  if (length > kMaxDenseLength || length > d->end - d->pos) {
    return fail(d, at, "truncated-payload", "dense array of %u elements, %zu bytes left", length, d->end - d->pos);
  }
  node *a = mk(d, N_ARRAY);
  a->length = length;
  add_id(d, d->next_id++, a);
  for (uint32_t i = 0; i < length; i++) {
    uint8_t tag;
    if (peek_tag(d, &tag) && tag == '-') {  /* the hole */
      read_tag(d, &tag);
      continue;
    }
    node *element = read_object(d);
    if (!element) return NULL;
    prop p = index_key(i);
    p.value = element;
    append_prop(a, p);
  }
  int64_t n = read_properties(d, a, '$');
  if (n < 0 || !check_count(d, "properties", (uint64_t)n) || !check_count(d, "length", length)) return NULL;
  return a;
}

static node *read_date(dec *d) {
  double t;
  if (!read_double(d, &t)) return NULL;
  node *n = mk(d, N_DATE);
  n->num = time_clip(t);
  add_id(d, d->next_id++, n);
  return n;
}

static node *read_wrapper(dec *d, uint8_t tag) {
  uint32_t id = d->next_id++;
  node *inner = NULL;
  double v;
  switch (tag) {
    case 'y': case 'x':
      inner = mk(d, N_BOOL);
      inner->boolean = tag == 'y';
      break;
    case 'n':
      if (!read_double(d, &v)) return NULL;
      inner = number(d, v);
      break;
    case 'z': inner = read_bigint(d); break;
    default: inner = read_string_value(d, "a String object's value"); break;
  }
  if (!inner) return NULL;
  node *n = mk(d, N_BOXED);
  n->inner = inner;
  if (inner->t == N_STRING) {  /* a String object has an index property per code unit */
    for (size_t i = 0; i < inner->str.n; i++) {
      prop p = index_key((uint32_t)i);
      p.value = mk(d, N_STRING);
      p.value->str.s = malloc(sizeof *p.value->str.s);
      p.value->str.s[0] = inner->str.s[i];
      p.value->str.n = 1;
      append_prop(n, p);
    }
  }
  add_id(d, id, n);
  return n;
}

/* JSRegExp flag bits (g i m y u s l d v) and their order in RegExp#flags. */
#define kRegExpFlagCount 9
#define kRegExpLinear (1u << 6)
#define kRegExpUnicode (1u << 4)
#define kRegExpUnicodeSets (1u << 8)
static const struct { uint32_t bit; char name; } kFlagOrder[] = {
  { 1u << 7, 'd' }, { 1u << 0, 'g' }, { 1u << 1, 'i' }, { 1u << 2, 'm' },
  { 1u << 5, 's' }, { 1u << 4, 'u' }, { 1u << 8, 'v' }, { 1u << 3, 'y' } };

static node *read_regexp(dec *d) {
  uint32_t id = d->next_id++;
  node *source = read_string_value(d, "a RegExp's source");
  if (!source) return NULL;
  size_t at = d->pos;
  uint32_t flags;
  if (!varint(d, 32, &flags, IPCFUZZ_SPAN_VARINT)) return NULL;
  uint32_t bad = (~0u << kRegExpFlagCount) | kRegExpLinear;
  if ((flags & bad) || ((flags & kRegExpUnicode) && (flags & kRegExpUnicodeSets))) {
    return fail(d, at, "bad-regexp", "invalid flags 0x%x", flags);
  }
  const char *why = ipcfuzz_regexp_error(source->str.s, source->str.n,
                                         (flags & (kRegExpUnicode | kRegExpUnicodeSets)) != 0,
                                         (flags & kRegExpUnicodeSets) != 0);
  if (why) {
    d->exception = 1;  /* a SyntaxError */
    return fail(d, at, "bad-regexp", "invalid pattern: %s", why);
  }
  node *n = mk(d, N_REGEXP);
  n->inner = source;
  n->flags = flags;
  add_id(d, id, n);
  return n;
}

static node *read_map_or_set(dec *d, int is_map) {
  node *c = mk(d, is_map ? N_MAP : N_SET);
  add_id(d, d->next_id++, c);
  uint8_t end_tag = is_map ? ':' : ',';
  uint64_t read = 0;
  for (;;) {
    uint8_t tag;
    if (!peek_tag(d, &tag)) return fail(d, d->end, "truncated-payload", "expected an entry or the end tag");
    if (tag == end_tag) {
      read_tag(d, &tag);
      break;
    }
    node *k = read_object(d);
    if (!k) return NULL;
    node *v = NULL;
    if (is_map && !(v = read_object(d))) return NULL;
    read += is_map ? 2 : 1;
    if (k->t == N_NUMBER && k->num == 0) k->num = 0.0;  /* Map#set and Set#add store -0 as +0 */
    size_t step = is_map ? 2 : 1, i = 0;
    while (i < c->nitems && !same_value_zero(c->items[i], k)) i += step;
    if (i < c->nitems) {
      if (is_map) c->items[i + 1] = v;
      continue;
    }
    push_item(c, k);
    if (is_map) push_item(c, v);
  }
  if (!check_count(d, "length", read)) return NULL;
  return c;
}

static node *read_array_buffer(dec *d, int resizable) {
  uint32_t id = d->next_id++;
  size_t at = d->pos;
  uint32_t length, max = 0;
  const uint8_t *p;
  if (!varint(d, 32, &length, IPCFUZZ_SPAN_LENGTH)) return NULL;
  if (resizable) {
    if (!varint(d, 32, &max, IPCFUZZ_SPAN_VARINT)) return NULL;
    if (length > max) return fail(d, at, "bad-buffer", "byteLength %u > maxByteLength %u", length, max);
  }
  if (!raw(d, length, &p)) return NULL;
  node *n = mk(d, N_ARRAYBUFFER);
  n->bytes = p;
  n->byte_length = length;
  n->resizable = resizable;
  n->max_byte_length = max;
  add_id(d, id, n);
  return n;
}

/* V8's own ArrayBufferView encoding: 'V' right after an ArrayBuffer. */
static node *read_v8_view(dec *d, node *buffer) {
  static const char subtags[] = "bBCwWdDfF?\0qQh";  /* by IPC view index */
  size_t at = d->pos;
  uint32_t subtag, offset, length, flags = 0;
  if (!varint(d, 8, &subtag, IPCFUZZ_SPAN_SUBTAG) || !varint(d, 32, &offset, IPCFUZZ_SPAN_VARINT) ||
      !varint(d, 32, &length, IPCFUZZ_SPAN_VARINT)) return NULL;
  size_t buffer_length = buffer->byte_length;
  if (offset > buffer_length || length > buffer_length - offset) {
    return fail(d, at, "bad-view", "bytes %u+%u outside a buffer of %zu", offset, length, buffer_length);
  }
  if ((d->version >= 14 || d->broken13) && !varint(d, 32, &flags, IPCFUZZ_SPAN_VARINT)) return NULL;
  uint32_t id = d->next_id++;
  int index = -1;
  for (int i = 0; i < kViewIndexCount; i++) if (subtag && subtags[i] == (char)subtag) index = i;
  if (index < 0) return fail(d, at, "bad-view", "unknown view sub-tag 0x%02x", subtag);
  int width = kViewWidths[index];
  if (offset % width || length % width) return fail(d, at, "bad-view", "%s not aligned", kViewNames[index]);
  int length_tracking = flags & 1, backed_by_rab = (flags >> 1) & 1;
  if (((length_tracking || backed_by_rab) && !buffer->resizable) || (buffer->resizable && !backed_by_rab)) {
    return fail(d, at, "bad-view", "flags %u do not fit the buffer", flags);
  }
  node *v = mk(d, N_VIEW);
  v->view_index = index;
  v->byte_length = length_tracking ? (buffer_length - offset) / width * width : length;
  v->view_length = v->byte_length / width;
  v->bytes = buffer->bytes + offset;
  v->backing = offset == 0 && v->byte_length == buffer_length ? B_EXACT : B_SLICE;
  add_id(d, id, v);
  return v;
}

static node *read_error(dec *d) {
  static const char prototypes[] = "\0ERFSTU";  /* by kErrorNames index */
  uint32_t id = d->next_id++;
  uint32_t tag;
  size_t at = d->pos;
  if (!varint(d, 8, &tag, IPCFUZZ_SPAN_SUBTAG)) return NULL;
  node *e = mk(d, N_ERROR);
  for (int i = 1; i < 7; i++) if (tag == (uint8_t)prototypes[i]) e->error_type = i;
  if (e->error_type) {
    at = d->pos;
    if (!varint(d, 8, &tag, IPCFUZZ_SPAN_SUBTAG)) return NULL;
  }
  if (tag == 'm') {
    if (!(e->inner = read_string_value(d, "an Error's message"))) return NULL;
    at = d->pos;
    if (!varint(d, 8, &tag, IPCFUZZ_SPAN_SUBTAG)) return NULL;
  }
  if (tag == 's') {
    if (!read_string_value(d, "an Error's stack")) return NULL;
    e->has_stack = 1;
    at = d->pos;
    if (!varint(d, 8, &tag, IPCFUZZ_SPAN_SUBTAG)) return NULL;
  }
  add_id(d, id, e);
  if (tag == 'c') {
    if (!(e->cause = read_object(d))) return NULL;
    e->has_cause = 1;
    at = d->pos;
    if (!varint(d, 8, &tag, IPCFUZZ_SPAN_SUBTAG)) return NULL;
  }
  if (tag != '.') return fail(d, at, "bad-error", "error sub-tag 0x%02x out of place", tag);
  return e;
}

/* Node's IPC host objects (ChildProcessDeserializer._readHostObject). Errors
 * here are thrown by JavaScript: V8 does not retry version 13 after them. */
static node *host_failed(dec *d) {
  d->exception = 1;
  return NULL;
}

static node *read_host_object(dec *d) {
  uint32_t id = d->next_id++;
  size_t at = d->pos;
  uint32_t tag;
  node *n;
  if (!varint(d, 32, &tag, IPCFUZZ_SPAN_HOST_TAG)) return host_failed(d);
  if (tag == 0) {
    uint32_t index, length;
    const uint8_t *p;
    size_t index_at = d->pos;
    if (!varint(d, 32, &index, IPCFUZZ_SPAN_VIEW_INDEX) || !varint(d, 32, &length, IPCFUZZ_SPAN_LENGTH) ||
        !raw(d, length, &p)) return host_failed(d);
    size_t bytes_at = d->pos - length;
    if (index >= kViewIndexCount) {
      fail(d, index_at, "bad-view-index", "view type index %u", index);
      return host_failed(d);
    }
    int width = kViewWidths[index];
    n = mk(d, N_VIEW);
    n->view_index = (int)index;
    n->is_buffer = index == kBufferIndex;
    n->view_length = length / width;  /* new ctor(buffer, offset, byteLength / width) truncates */
    n->byte_length = n->view_length * width;
    n->bytes = p;
    /* Aligned views borrow the frame; others are copied into a new Buffer. */
    n->backing = bytes_at % width == 0 ? B_FRAME : B_COPY;
    n->byte_offset = bytes_at;
#ifdef IPCFUZZ_PLANTED_BUG
    /* The planted bug: a copy sized for whole elements gets every byte. */
    uint8_t *copy = malloc(n->byte_length ? n->byte_length : 1);
    memcpy(copy, p, length);
    __asm__ volatile("" : : "r"(copy) : "memory");  /* the copy is used, as far as the optimizer knows */
    free(copy);
#endif
  } else if (tag == 1) {
    size_t value_at = skip_padding(d, d->pos);
    n = read_object_wrapper(d);
    if (!n) return NULL;
    if (!is_object(n)) {
      fail(d, value_at, "host-not-object", "the copied host object is a primitive");
      return host_failed(d);
    }
  } else {
    fail(d, at, "bad-host-tag", "IPC host tag %u", tag);
    return host_failed(d);
  }
  add_id(d, id, n);
  return n;
}

static node *unsupported(dec *d, size_t at, const char *what, int throws) {
  uint32_t operand;
  if (!varint(d, 32, &operand, IPCFUZZ_SPAN_VARINT)) return NULL;
  d->exception = throws;
  return fail(d, at, "unsupported-tag", "%s: the IPC deserializer has none", what);
}

static node *read_object_internal(dec *d) {
  size_t at = skip_padding(d, d->pos);
  uint8_t tag;
  uint32_t u;
  double v;
  if (!read_tag(d, &tag)) return NULL;
  switch (tag) {
    case '?':
      if (!varint(d, 32, &u, IPCFUZZ_SPAN_VARINT)) return NULL;
      return read_object(d);
    case '_': return mk(d, N_UNDEFINED);
    case '0': return mk(d, N_NULL);
    case 'T': case 'F': {
      node *n = mk(d, N_BOOL);
      n->boolean = tag == 'T';
      return n;
    }
    case 'I':
      if (!varint(d, 32, &u, IPCFUZZ_SPAN_VARINT)) return NULL;
      return number(d, (int32_t)((u >> 1) ^ (0u - (u & 1))));
    case 'U':
      if (!varint(d, 32, &u, IPCFUZZ_SPAN_VARINT)) return NULL;
      return number(d, u);
    case 'N':
      if (!read_double(d, &v)) return NULL;
      return number(d, v);
    case 'Z': return read_bigint(d);
    case 'S': case '"': case 'c': return read_string(d, tag);
    case '^':
      if (!varint(d, 32, &u, IPCFUZZ_SPAN_VARINT)) return NULL;
      return get_object(d, at, u);
    case 'o': return read_js_object(d);
    case 'a': return read_sparse_array(d);
    case 'A': return read_dense_array(d);
    case 'D': return read_date(d);
    case 'y': case 'x': case 'n': case 'z': case 's': return read_wrapper(d, tag);
    case 'R': return read_regexp(d);
    case ';': return read_map_or_set(d, 1);
    case '\'': return read_map_or_set(d, 0);
    case 'B': case 'C': return read_array_buffer(d, 0);  /* 'C': immutable (V8 14), same bytes */
    case '~': return read_array_buffer(d, 1);
    case 'r': return read_error(d);
    case '\\': return read_host_object(d);
    case 't': d->next_id++; return unsupported(d, at, "transferred ArrayBuffer", 0);
    case 'u': d->next_id++; return unsupported(d, at, "SharedArrayBuffer", 1);
    case 'w': return unsupported(d, at, "WebAssembly.Module", 1);
    case 'm': return unsupported(d, at, "WebAssembly.Memory", 1);
    case 'p':
      if (d->version >= 15) return unsupported(d, at, "shared object", 1);
      break;
  }
  return fail(d, at, "bad-tag", "tag 0x%02x", tag);
}

/* ReadObject: a value, and a 'V' view over it when it is an ArrayBuffer. */
static node *read_object(dec *d) {
  size_t start = skip_padding(d, d->pos);
  if (d->depth >= IPCFUZZ_MAX_DEPTH) {
    d->exception = 1;  /* V8: RangeError at its stack limit */
    return fail(d, start, "depth", "more than %d nested values", IPCFUZZ_MAX_DEPTH);
  }
  d->depth++;
  node *n = read_object_internal(d);
  uint8_t tag;
  if (n && n->t == N_ARRAYBUFFER && peek_tag(d, &tag) && tag == 'V') {
    read_tag(d, &tag);
    n = read_v8_view(d, n);
  }
  d->depth--;
  if (n) span(d, IPCFUZZ_SPAN_VALUE, start, d->pos, (uint64_t)n->t);
  return n;
}

/* ReadObjectWrapper: a version 13 payload that fails is read again as the
 * broken version 13 format, with the object ids that the first try used. */
static node *read_object_wrapper(dec *d) {
  size_t start = d->pos;
  node *n = read_object(d);
  if (!n && d->version == 13 && !d->exception) {
    d->broken13 = 1;
    d->pos = start;
    d->reason = NULL;
    n = read_object(d);
  }
  if (!n) d->exception = 1;
  return n;
}

static int read_header(dec *d) {
  size_t at = d->pos;
  if (d->pos < d->end && d->data[d->pos] == 0xff) {
    d->pos++;
    uint32_t version;
    if (!varint(d, 32, &version, IPCFUZZ_SPAN_VARINT)) {
      d->reason = NULL;
      fail(d, at, "bad-header", "the version varint runs past the payload");
      return 0;
    }
    d->version = version;
    span(d, IPCFUZZ_SPAN_HEADER, at, d->pos, version);
  }
  if (d->version < kMinVersion || d->version > kLatestVersion) {
    fail(d, at, "bad-header", d->pos == at ? "no version header (legacy format)" : "version %u", d->version);
    return 0;
  }
  return 1;
}

/* ---------- the canonical tree, as JSON ---------- */

typedef struct { char *s; size_t n, cap; int canon_next; int failed; } out;

static void put(out *o, const char *text, size_t n) {
  o->s = grow(o->s, &o->cap, o->n + n + 1, 1);
  memcpy(o->s + o->n, text, n);
  o->n += n;
  o->s[o->n] = 0;
}

static void puts_(out *o, const char *text) { put(o, text, strlen(text)); }

static void putf(out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  o->s = grow(o->s, &o->cap, o->n + (size_t)n + 1, 1);
  va_start(ap, fmt);
  vsnprintf(o->s + o->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  o->n += (size_t)n;
}

static void put_u16(out *o, u16s s) {
  puts_(o, "\"");
  for (size_t i = 0; i < s.n; i++) {
    uint16_t c = s.s[i];
    if (c == '"' || c == '\\') putf(o, "\\%c", c);
    else if (c >= 0x20 && c < 0x7f) putf(o, "%c", c);
    else putf(o, "\\u%04x", c);
  }
  puts_(o, "\"");
}

static void put_hex(out *o, const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  puts_(o, "\"");
  for (size_t i = 0; i < n; i++) {
    char pair[2] = { digits[p[i] >> 4], digits[p[i] & 15] };
    put(o, pair, 2);
  }
  puts_(o, "\"");
}

static void put_number(out *o, double v) {
  char buf[40];
  if (v == 0 && signbit(v)) strcpy(buf, "-0");
  else js_number(v, buf);
  putf(o, "\"%s\"", buf);
}

/* RegExp#source: '/' outside classes and line terminators escaped (EscapeRegExpSource). */
static void put_regexp_source(out *o, u16s src) {
  if (src.n == 0) { puts_(o, "\"(?:)\""); return; }
  u16s e = { NULL, 0 };
  size_t cap = 0;
  int in_class = 0;
  for (size_t i = 0; i < src.n; i++) {
    uint16_t c = src.s[i];
    int next_is_terminator = i + 1 < src.n &&
      (src.s[i + 1] == '\n' || src.s[i + 1] == '\r' || src.s[i + 1] == 0x2028 || src.s[i + 1] == 0x2029);
    if (c == '\\' && next_is_terminator) continue;
    const char *escape = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == 0x2028 ? "\\u2028" : c == 0x2029 ? "\\u2029" : NULL;
    if (escape) {
      for (; *escape; escape++) u16_push(&e, &cap, (uint8_t)*escape);
      continue;
    }
    if (c == '\\') {
      u16_push(&e, &cap, c);
      if (++i == src.n) break;
      c = src.s[i];
    } else if (c == '/' && !in_class) {
      u16_push(&e, &cap, '\\');
    } else if (c == '[') {
      in_class = 1;
    } else if (c == ']') {
      in_class = 0;
    }
    u16_push(&e, &cap, c);
  }
  put_u16(o, e);
  free(e.s);
}

static int by_index(const void *a, const void *b) {
  uint32_t x = (*(const prop *const *)a)->index, y = (*(const prop *const *)b)->index;
  return x < y ? -1 : x > y;
}

static void emit(out *o, node *n, int depth);

/* Own enumerable keys in [[OwnPropertyKeys]] order: indices ascending, then
 * the other keys in the order they were defined. */
static void emit_props(out *o, node *n, int depth) {
  prop **order = malloc((n->nprops ? n->nprops : 1) * sizeof *order);
  size_t k = 0;
  for (size_t i = 0; i < n->nprops; i++) if (n->props[i].is_index) order[k++] = &n->props[i];
  qsort(order, k, sizeof *order, by_index);
  for (size_t i = 0; i < n->nprops; i++) if (!n->props[i].is_index) order[k++] = &n->props[i];
  puts_(o, ",\"props\":[");
  for (size_t i = 0; i < k; i++) {
    puts_(o, i ? ",[" : "[");
    put_u16(o, order[i]->key);
    puts_(o, ",");
    emit(o, order[i]->value, depth + 1);
    puts_(o, "]");
  }
  puts_(o, "]");
  free(order);
}

static void emit_view(out *o, node *n) {
  int index = n->view_index;
  const char *name = kViewNames[index];
  if (index == kBufferIndex) puts_(o, ",\"proto\":[\"Buffer\",\"Uint8Array\",\"TypedArray\",\"Object\"]");
  else if (index == kDataViewIndex) puts_(o, ",\"proto\":[\"DataView\",\"Object\"]");
  else putf(o, ",\"proto\":[\"%s\",\"TypedArray\",\"Object\"]", name);
  putf(o, ",\"kind\":\"%s\",\"isBuffer\":%s", index == kBufferIndex ? "Uint8Array" : name,
       n->is_buffer ? "true" : "false");
  if (index != kDataViewIndex) putf(o, ",\"length\":%llu", (unsigned long long)n->view_length);
  static const char *const backings[] = { "frame", "exact", "slice", "copy" };
  putf(o, ",\"byteLength\":%zu,\"backing\":\"%s\"", n->byte_length, backings[n->backing]);
  if (n->backing == B_FRAME) putf(o, ",\"byteOffset\":%zu", n->byte_offset);
  puts_(o, ",\"bytes\":");
  put_hex(o, n->bytes, n->byte_length);
}

static void emit(out *o, node *n, int depth) {
  if (depth > kMaxEmitDepth) { o->failed = 1; return; }
  switch (n->t) {
    case N_UNDEFINED: puts_(o, "{\"t\":\"undefined\"}"); return;
    case N_NULL: puts_(o, "{\"t\":\"null\"}"); return;
    case N_BOOL: putf(o, "{\"t\":\"boolean\",\"v\":%s}", n->boolean ? "true" : "false"); return;
    case N_NUMBER: puts_(o, "{\"t\":\"number\",\"v\":"); put_number(o, n->num); puts_(o, "}"); return;
    case N_BIGINT: putf(o, "{\"t\":\"bigint\",\"v\":\"%s\"}", n->bigint); return;
    case N_STRING: puts_(o, "{\"t\":\"string\",\"v\":"); put_u16(o, n->str); puts_(o, "}"); return;
  }
  if (n->canon_id >= 0) { putf(o, "{\"t\":\"ref\",\"id\":%d}", n->canon_id); return; }
  n->canon_id = o->canon_next++;
  static const char *const names[] = { [N_OBJECT] = "object", [N_ARRAY] = "array", [N_MAP] = "map",
    [N_SET] = "set", [N_DATE] = "date", [N_REGEXP] = "regexp", [N_BOXED] = "boxed", [N_ERROR] = "error",
    [N_ARRAYBUFFER] = "arraybuffer", [N_VIEW] = "view" };
  putf(o, "{\"t\":\"%s\",\"id\":%d", names[n->t], n->canon_id);
  switch (n->t) {
    case N_OBJECT: puts_(o, ",\"proto\":[\"Object\"]"); break;
    case N_ARRAY: putf(o, ",\"proto\":[\"Array\",\"Object\"],\"length\":%llu", (unsigned long long)n->length); break;
    case N_MAP: case N_SET:
      putf(o, n->t == N_MAP ? ",\"proto\":[\"Map\",\"Object\"],\"entries\":[" : ",\"proto\":[\"Set\",\"Object\"],\"values\":[");
      for (size_t i = 0; i < n->nitems; i++) {
        if (i) puts_(o, ",");
        if (n->t == N_MAP && i % 2 == 0) puts_(o, "[");
        emit(o, n->items[i], depth + 1);
        if (n->t == N_MAP && i % 2 == 1) puts_(o, "]");
      }
      puts_(o, "]");
      break;
    case N_DATE: puts_(o, ",\"proto\":[\"Date\",\"Object\"],\"v\":"); put_number(o, n->num); break;
    case N_REGEXP:
      puts_(o, ",\"proto\":[\"RegExp\",\"Object\"],\"source\":");
      put_regexp_source(o, n->inner->str);
      puts_(o, ",\"flags\":\"");
      for (size_t i = 0; i < sizeof kFlagOrder / sizeof *kFlagOrder; i++) {
        if (n->flags & kFlagOrder[i].bit) put(o, &kFlagOrder[i].name, 1);
      }
      puts_(o, "\"");
      break;
    case N_BOXED: {
      static const char *const boxes[] = { [N_BOOL] = "Boolean", [N_NUMBER] = "Number", [N_BIGINT] = "BigInt",
                                           [N_STRING] = "String" };
      putf(o, ",\"proto\":[\"%s\",\"Object\"],\"v\":", boxes[n->inner->t]);
      emit(o, n->inner, depth + 1);
      break;
    }
    case N_ERROR:
      if (n->error_type) putf(o, ",\"proto\":[\"%s\",\"Error\",\"Object\"]", kErrorNames[n->error_type]);
      else puts_(o, ",\"proto\":[\"Error\",\"Object\"]");
      putf(o, ",\"name\":\"%s\",\"message\":", kErrorNames[n->error_type]);
      if (n->inner) put_u16(o, n->inner->str);
      else puts_(o, "\"\"");
      putf(o, ",\"hasStack\":%s", n->has_stack ? "true" : "false");
      if (n->has_cause) { puts_(o, ",\"cause\":"); emit(o, n->cause, depth + 1); }
      break;
    case N_ARRAYBUFFER:
      putf(o, ",\"proto\":[\"ArrayBuffer\",\"Object\"],\"shared\":false,\"byteLength\":%zu,\"resizable\":%s",
           n->byte_length, n->resizable ? "true" : "false");
      if (n->resizable) putf(o, ",\"maxByteLength\":%u", n->max_byte_length);
      puts_(o, ",\"bytes\":");
      put_hex(o, n->bytes, n->byte_length);
      break;
    case N_VIEW: emit_view(o, n); break;
  }
  emit_props(o, n, depth);
  puts_(o, "}");
}

/* ---------- frames ---------- */

int ipcfuzz_decode_frame(const uint8_t *data, size_t size, ipcfuzz_result *result,
                         ipcfuzz_trace_fn trace, void *trace_ctx) {
  memset(result, 0, sizeof *result);
  dec d;
  memset(&d, 0, sizeof d);
  d.data = data;
  d.trace = trace;
  d.trace_ctx = trace_ctx;
  if (size < 4) {
    fail(&d, 0, "truncated-length", "%zu of 4 length bytes", size);
  } else {
    uint64_t length = (uint64_t)data[0] << 24 | data[1] << 16 | data[2] << 8 | data[3];
    result->frame_end = (size_t)(length + 4);
    span(&d, IPCFUZZ_SPAN_PREFIX, 0, 4, length);
    if (length + 4 > size) {
      fail(&d, size, "truncated-payload", "%llu payload bytes announced, %zu there",
           (unsigned long long)length, size - 4);
    } else {
      d.pos = 4;
      d.end = (size_t)length + 4;
      node *value = NULL;
      if (read_header(&d)) value = read_object_wrapper(&d);
      if (value) {
        out o = { NULL, 0, 0, 0, 0 };
        emit(&o, value, 0);
        if (o.failed) {
          free(o.s);
          fail(&d, d.pos, "depth", "the canonical tree nests more than %d deep", kMaxEmitDepth);
        } else {
          result->ok = 1;
          result->json = o.s;
          result->value_end = d.pos;
          result->trailing = d.end - d.pos;
        }
      }
    }
  }
  result->version = d.version;
  if (!result->ok) {
    result->reason = d.reason ? d.reason : "bad-tag";
    result->offset = d.reason_at;
    snprintf(result->detail, sizeof result->detail, "%s", d.detail);
  }
  free_nodes(&d);
  return result->ok;
}

void ipcfuzz_result_free(ipcfuzz_result *result) {
  free(result->json);
  result->json = NULL;
}
