/* A recursive-descent check of ECMAScript pattern syntax: with the u or v
 * flag the strict grammar, without it the lenient one of Annex B. Error
 * names are those of V8's RegExpParser. */
#include "regexp.h"

#include <stdlib.h>
#include <string.h>

#define kMaxNesting 4096

enum { ATOM = 1, ASSERTION, LOOKAHEAD, LOOKBEHIND };

/* Where a group sits: the disjunctions around it and the alternative taken
 * in each. Two groups of one name must be in different alternatives. */
typedef struct { size_t disjunction, alternative; } step;
typedef struct { size_t start, end; step *path; size_t depth; } name_ref;

typedef struct {
  const uint16_t *s;
  size_t n, pos;
  int u, v, named;
  size_t captures;
  const char *error;
  step path[kMaxNesting + 1];
  size_t depth, disjunctions;
  name_ref *groups, *refs;
  size_t ngroups, nrefs, cap_groups, cap_refs;
} parser;

static int peek_at(const parser *p, size_t i) { return p->pos + i < p->n ? p->s[p->pos + i] : -1; }
static int peek(const parser *p) { return peek_at(p, 0); }
static int fail(parser *p, const char *error) { if (!p->error) p->error = error; return 0; }
static int digit(int c) { return c >= '0' && c <= '9'; }
static int letter(int c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static int hex(int c) { return digit(c) ? c - '0' : ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') ? (c | 0x20) - 'a' + 10 : -1; }
static int syntax_char(int c) { return c > 0 && c < 128 && strchr("^$\\.*+?()[]{}|/", c); }

static void push_name(name_ref **list, size_t *n, size_t *cap, name_ref ref) {
  if (*n == *cap) {
    *cap = *cap ? *cap * 2 : 8;
    *list = realloc(*list, *cap * sizeof **list);
    if (!*list) abort();
  }
  (*list)[(*n)++] = ref;
}

/* {n}, {n,} or {n,m} at the cursor: its length, or 0 when it is not one. */
static size_t interval(const parser *p, int *in_order) {
  size_t i = p->pos + 1;
  double min = 0, max;
  if (i >= p->n || !digit(p->s[i])) return 0;
  while (i < p->n && digit(p->s[i])) min = min * 10 + (p->s[i++] - '0');
  max = min;
  if (i < p->n && p->s[i] == ',') {
    i++;
    max = 1e308;
    if (i < p->n && digit(p->s[i])) for (max = 0; i < p->n && digit(p->s[i]);) max = max * 10 + (p->s[i++] - '0');
  }
  if (i >= p->n || p->s[i] != '}') return 0;
  *in_order = min <= max;
  return i + 1 - p->pos;
}

/* \u escapes after the 'u': returns the code point or -1. */
static long unicode_escape(parser *p, int braces) {
  if (braces && peek(p) == '{') {
    size_t save = p->pos++;
    long v = 0;
    int any = 0;
    while (hex(peek(p)) >= 0) { v = v * 16 + hex(peek(p)); p->pos++; any = 1; if (v > 0x10ffff) break; }
    if (any && v <= 0x10ffff && peek(p) == '}') { p->pos++; return v; }
    p->pos = save;
    return -1;
  }
  long v = 0;
  for (int i = 0; i < 4; i++) {
    if (hex(peek_at(p, i)) < 0) return -1;
    v = v * 16 + hex(peek_at(p, i));
  }
  p->pos += 4;
  /* In unicode mode \uD83D\uDE00 is one code point. */
  if (braces && v >= 0xd800 && v <= 0xdbff && peek(p) == '\\' && peek_at(p, 1) == 'u') {
    size_t save = p->pos;
    p->pos += 2;
    long low = 0;
    int ok = 1;
    for (int i = 0; i < 4 && ok; i++) ok = hex(peek_at(p, i)) >= 0 && (low = low * 16 + hex(peek_at(p, i)), 1);
    if (ok && low >= 0xdc00 && low <= 0xdfff) { p->pos += 4; return 0x10000 + ((v - 0xd800) << 10) + (low - 0xdc00); }
    p->pos = save;
  }
  return v;
}

/* A group name after "(?<" or "\k<", up to and including '>'. */
static int group_name(parser *p, name_ref *ref) {
  ref->start = p->pos;
  for (int first = 1;; first = 0) {
    int c = peek(p);
    if (c == '>') break;
    if (c < 0) return 0;
    p->pos++;
    if (c == '\\') {
      if (peek(p) != 'u') return 0;
      p->pos++;
      if (unicode_escape(p, 1) < 0) return 0;
      continue;
    }
    if (!(letter(c) || c == '$' || c == '_' || c >= 0x80 || (!first && digit(c)))) return 0;
  }
  ref->end = p->pos++;
  return ref->end > ref->start;
}

static int same_name(const parser *p, const name_ref *a, const name_ref *b) {
  return a->end - a->start == b->end - b->start &&
         memcmp(p->s + a->start, p->s + b->start, (a->end - a->start) * sizeof *p->s) == 0;
}

/* Up-front scan, as V8 does: how many captures, and are any named? */
static void scan(parser *p) {
  int in_class = 0;
  for (size_t i = 0; i < p->n; i++) {
    uint16_t c = p->s[i];
    if (c == '\\') i++;
    else if (c == '[') in_class = 1;
    else if (c == ']') in_class = 0;
    else if (c == '(' && !in_class) {
      if (i + 1 < p->n && p->s[i + 1] == '?') {
        if (i + 3 < p->n && p->s[i + 2] == '<' && p->s[i + 3] != '=' && p->s[i + 3] != '!') {
          p->named = 1;
          p->captures++;
        }
      } else p->captures++;
    }
  }
}

static int atom_escape(parser *p) {
  int c = peek(p);
  if (c < 0) return fail(p, "\\ at end of pattern");
  p->pos++;
  switch (c) {
    case 'd': case 'D': case 's': case 'S': case 'w': case 'W':
    case 'f': case 'n': case 'r': case 't': case 'v':
      return 1;
    case 'c':
      if (letter(peek(p))) p->pos++;
      else if (p->u) return fail(p, "Invalid unicode escape");
      return 1;
    case '0':
      if (p->u && digit(peek(p))) return fail(p, "Invalid decimal escape");
      return 1;
    case 'k':
      if (p->u || p->named) {
        name_ref ref;
        if (peek(p) != '<') return fail(p, "Invalid named reference");
        p->pos++;
        if (!group_name(p, &ref)) return fail(p, "Invalid named reference");
        push_name(&p->refs, &p->nrefs, &p->cap_refs, ref);
      }
      return 1;
    case 'p': case 'P':
      if (p->u) {
        if (peek(p) != '{') return fail(p, "Invalid property name");
        p->pos++;
        size_t start = p->pos;
        while (letter(peek(p)) || digit(peek(p)) || peek(p) == '_' || peek(p) == '=') p->pos++;
        if (peek(p) != '}' || p->pos == start) return fail(p, "Invalid property name");
        p->pos++;
      }
      return 1;
    case 'x':
      if (hex(peek(p)) >= 0 && hex(peek_at(p, 1)) >= 0) p->pos += 2;
      else if (p->u) return fail(p, "Invalid escape");
      return 1;
    case 'u':
      if (unicode_escape(p, p->u) < 0 && p->u) return fail(p, "Invalid Unicode escape");
      return 1;
  }
  if (digit(c)) {
    size_t number = (size_t)(c - '0');
    while (digit(peek(p)) && number < 1000000) number = number * 10 + (size_t)(peek(p) - '0'), p->pos++;
    if (p->u && number > p->captures) return fail(p, "Invalid escape");
    return 1;
  }
  if (p->u && !syntax_char(c)) return fail(p, "Invalid escape");
  return 1;
}

/* One class atom: its code point, or -1 for a class escape (\d, \p{...}). */
static long class_atom(parser *p) {
  int c = peek(p);
  if (c < 0) return fail(p, "Unterminated character class"), -2;
  p->pos++;
  if (c != '\\') {
    if (p->u && c >= 0xd800 && c <= 0xdbff && peek(p) >= 0xdc00 && peek(p) <= 0xdfff) {
      return 0x10000 + ((c - 0xd800) << 10) + (p->s[p->pos++] - 0xdc00);
    }
    return c;
  }
  c = peek(p);
  if (c < 0) return fail(p, "\\ at end of pattern"), -2;
  p->pos++;
  switch (c) {
    case 'd': case 'D': case 's': case 'S': case 'w': case 'W': return -1;
    case 'p': case 'P':
      if (!p->u) return c;
      if (peek(p) != '{') return fail(p, "Invalid property name"), -2;
      while (peek(p) >= 0 && peek(p) != '}') p->pos++;
      if (peek(p) != '}') return fail(p, "Invalid property name"), -2;
      p->pos++;
      return -1;
    case 'b': return 8;
    case 'f': return 12;
    case 'n': return 10;
    case 'r': return 13;
    case 't': return 9;
    case 'v': return 11;
    case '-': return '-';
    case 'c':
      if (letter(peek(p)) || (!p->u && (digit(peek(p)) || peek(p) == '_'))) return p->s[p->pos++] % 32;
      if (p->u) return fail(p, "Invalid class escape"), -2;
      p->pos--;
      return '\\';
    case 'x':
      if (hex(peek(p)) >= 0 && hex(peek_at(p, 1)) >= 0) {
        long v = hex(peek(p)) * 16 + hex(peek_at(p, 1));
        p->pos += 2;
        return v;
      }
      if (p->u) return fail(p, "Invalid escape"), -2;
      return 'x';
    case 'u': {
      long v = unicode_escape(p, p->u);
      if (v >= 0) return v;
      if (p->u) return fail(p, "Invalid Unicode escape"), -2;
      return 'u';
    }
  }
  if (digit(c)) {
    if (p->u) {
      if (c == '0' && !digit(peek(p))) return 0;
      return fail(p, "Invalid class escape"), -2;
    }
    if (c >= '8') return c;
    long v = c - '0';
    for (int i = 0; i < 2 && peek(p) >= '0' && peek(p) <= '7' && v * 8 + (peek(p) - '0') <= 0377; i++) {
      v = v * 8 + (p->s[p->pos++] - '0');
    }
    return v;
  }
  if (p->u && !syntax_char(c)) return fail(p, "Invalid escape"), -2;
  return c;
}

static int char_class(parser *p) {
  if (peek(p) == '^') p->pos++;
  for (;;) {
    int c = peek(p);
    if (c < 0) return fail(p, "Unterminated character class");
    if (c == ']') { p->pos++; return 1; }
    long from = class_atom(p);
    if (from == -2) return 0;
    if (peek(p) != '-' || peek_at(p, 1) == ']' || peek_at(p, 1) < 0) continue;
    p->pos++;
    long to = class_atom(p);
    if (to == -2) return 0;
    if (from == -1 || to == -1) {
      if (p->u) return fail(p, "Invalid character class");
    } else if (from > to) {
      return fail(p, "Range out of order in character class");
    }
  }
}

/* A v-mode class: nested classes, && and -- operators, \q{...} strings. */
static int class_set(parser *p, int nesting) {
  if (nesting > kMaxNesting) return fail(p, "Regular expression too large");
  if (peek(p) == '^') p->pos++;
  for (;;) {
    int c = peek(p);
    if (c < 0) return fail(p, "Unterminated character class");
    if (c == ']') { p->pos++; return 1; }
    if (c == '[') {
      p->pos++;
      if (!class_set(p, nesting + 1)) return 0;
      continue;
    }
    if ((c == '&' || c == '-') && peek_at(p, 1) == c) { p->pos += 2; continue; }
    if (c > 0 && c < 128 && strchr("&!#$%*+,.:;<=>?@^`~", c) && peek_at(p, 1) == c) {
      return fail(p, "Invalid set operation in character class");
    }
    long from;
    if (c == '\\' && peek_at(p, 1) == 'q') {
      p->pos += 2;
      if (peek(p) != '{') return fail(p, "Invalid escape");
      while (peek(p) >= 0 && peek(p) != '}') p->pos += peek(p) == '\\' ? 2 : 1;
      if (peek(p) != '}') return fail(p, "Unterminated character class");
      p->pos++;
      continue;
    }
    if (c != '\\' && c < 128 && strchr("()[]{}/-|", c)) return fail(p, "Invalid character in character class");
    if (c == '\\' && peek_at(p, 1) > 0 && peek_at(p, 1) < 128 && strchr("&-!#%,:;<=>@`~", peek_at(p, 1))) {
      p->pos += 2;
      from = p->s[p->pos - 1];
    } else if ((from = class_atom(p)) == -2) {
      return 0;
    }
    if (peek(p) != '-' || peek_at(p, 1) == '-') continue;
    p->pos++;
    long to = class_atom(p);
    if (to == -2) return 0;
    if (from == -1 || to == -1) return fail(p, "Invalid character class");
    if (from > to) return fail(p, "Range out of order in character class");
  }
}

static int disjunction(parser *p);

/* (?ims-ims:...) */
static int modifiers(parser *p) {
  int seen = 0, count = 0, dash = 0;
  for (;;) {
    int c = peek(p);
    int bit = c == 'i' ? 1 : c == 'm' ? 2 : c == 's' ? 4 : 0;
    if (bit) {
      if (seen & bit) return fail(p, "Repeated flag in flag group");
      seen |= bit;
      count++;
    } else if (c == '-' && !dash) {
      dash = 1;
    } else if (c == ':') {
      p->pos++;
      return count ? 1 : fail(p, "Invalid flag group");
    } else {
      return fail(p, "Invalid group");
    }
    p->pos++;
  }
}

static int group(parser *p) {
  int kind = ATOM;
  if (peek(p) == '?') {
    int c = peek_at(p, 1);
    if (c == ':') p->pos += 2;
    else if (c == '=' || c == '!') { p->pos += 2; kind = LOOKAHEAD; }
    else if (c == '<' && (peek_at(p, 2) == '=' || peek_at(p, 2) == '!')) { p->pos += 3; kind = LOOKBEHIND; }
    else if (c == '<') {
      p->pos += 2;
      name_ref ref;
      if (!group_name(p, &ref)) return fail(p, "Invalid capture group name");
      ref.depth = p->depth;
      ref.path = malloc((p->depth + 1) * sizeof *ref.path);
      memcpy(ref.path, p->path, (p->depth + 1) * sizeof *ref.path);
      for (size_t i = 0; i < p->ngroups; i++) {
        const name_ref *other = &p->groups[i];
        if (!same_name(p, other, &ref)) continue;
        size_t k = 0;
        while (k <= ref.depth && k <= other->depth && other->path[k].disjunction == ref.path[k].disjunction &&
               other->path[k].alternative == ref.path[k].alternative) k++;
        if (k > ref.depth || k > other->depth || other->path[k].disjunction != ref.path[k].disjunction) {
          free(ref.path);
          return fail(p, "Duplicate capture group name");
        }
      }
      push_name(&p->groups, &p->ngroups, &p->cap_groups, ref);
    } else if (c == 'i' || c == 'm' || c == 's' || c == '-') {
      p->pos++;
      if (!modifiers(p)) return 0;
    } else {
      return fail(p, "Invalid group");
    }
  }
  if (!disjunction(p)) return 0;
  if (peek(p) != ')') return fail(p, "Unterminated group");
  p->pos++;
  return kind;
}

static int term(parser *p) {
  int c = peek(p), in_order;
  switch (c) {
    case '^': case '$': p->pos++; return ASSERTION;
    case '\\':
      if (peek_at(p, 1) == 'b' || peek_at(p, 1) == 'B') { p->pos += 2; return ASSERTION; }
      p->pos++;
      return atom_escape(p) ? ATOM : 0;
    case '(': p->pos++; return group(p);
    case '[': p->pos++; return (p->v ? class_set(p, 0) : char_class(p)) ? ATOM : 0;
    case '*': case '+': case '?': return fail(p, "Nothing to repeat");
    case '{':
      if (interval(p, &in_order)) return fail(p, "Nothing to repeat");
      if (p->u) return fail(p, "Lone quantifier brackets");
      break;
    case '}': case ']':
      if (p->u) return fail(p, "Lone quantifier brackets");
      break;
  }
  if (p->u && c >= 0xd800 && c <= 0xdbff && peek_at(p, 1) >= 0xdc00 && peek_at(p, 1) <= 0xdfff) p->pos++;
  p->pos++;
  return ATOM;
}

static int alternative(parser *p) {
  for (;;) {
    int c = peek(p);
    if (c < 0 || c == '|' || c == ')') return 1;
    int kind = term(p), in_order = 1;
    if (!kind) return 0;
    c = peek(p);
    size_t length = c == '{' ? interval(p, &in_order) : 0;
    if (c == '*' || c == '+' || c == '?' || length) {
      if (kind == ASSERTION || kind == LOOKBEHIND || (kind == LOOKAHEAD && p->u)) return fail(p, "Nothing to repeat");
      if (!in_order) return fail(p, "numbers out of order in {} quantifier");
      p->pos += length ? length : 1;
      if (peek(p) == '?') p->pos++;
    } else if (c == '{' && p->u) {
      return fail(p, "Incomplete quantifier");
    }
  }
}

static int disjunction(parser *p) {
  if (p->depth >= kMaxNesting) return fail(p, "Regular expression too large");
  p->depth++;
  p->path[p->depth].disjunction = p->disjunctions++;
  p->path[p->depth].alternative = 0;
  int ok = alternative(p);
  while (ok && peek(p) == '|') {
    p->pos++;
    p->path[p->depth].alternative++;
    ok = alternative(p);
  }
  p->depth--;
  return ok;
}

const char *ipcfuzz_regexp_error(const uint16_t *pattern, size_t length, int unicode, int unicode_sets) {
  parser *p = calloc(1, sizeof *p);
  if (!p) abort();
  p->s = pattern;
  p->n = length;
  p->u = unicode;
  p->v = unicode_sets;
  scan(p);
  if (disjunction(p) && p->pos < p->n) fail(p, "Unmatched ')'");
  for (size_t i = 0; i < p->nrefs && !p->error; i++) {
    size_t j = 0;
    while (j < p->ngroups && !same_name(p, &p->groups[j], &p->refs[i])) j++;
    if (j == p->ngroups) fail(p, "Invalid named capture referenced");
  }
  const char *error = p->error;
  for (size_t i = 0; i < p->ngroups; i++) free(p->groups[i].path);
  free(p->groups);
  free(p->refs);
  free(p);
  return error;
}
