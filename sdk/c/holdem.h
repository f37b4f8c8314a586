/* holdem.h: the C SDK of the holdemjax player protocol, version 1 (holdemjax/series/PROTOCOL.md).
 *
 * Header-only, C11, no libc stdio (printf & co. import WASI and the host refuses such a module).
 * Including it in a policy gives:
 *
 *   - the exports `holdem_abi_version` (returns 1) and `holdem_alloc` (a reused 64 KiB static
 *     buffer; larger messages get a malloc'd one), so a policy only writes `holdem_on_message`,
 *     which this header declares with its export name;
 *   - a small JSON reader (objects, arrays, integers, strings, true/false/null; unknown keys
 *     are skipped) and `holdem_parse`, which reads `start`, `act`, `hand_end` and
 *     `tournament_end` messages into a `holdem_msg`; events stay raw JSON with an iterator;
 *   - a reply builder that writes valid JSON (escaped, UTF-8 checked, lines cut to 140 code
 *     points, never over the 4,096-byte reply limit) and returns the packed i64 the export
 *     returns;
 *   - the optional host imports `holdem.log` and `holdem.time_left_ns` (imported only if used);
 *   - threefry2x32 `fold_in` / `bits` exactly as JAX computes them, and the coordinate draws of
 *     the reference bots (sdk/README.md).
 *
 * A minimal policy:
 *
 *     #include "holdem.h"
 *     int64_t holdem_on_message(const char *msg, int32_t len) {
 *         static holdem_msg m;
 *         if (!holdem_parse(&m, msg, len) || m.type != HOLDEM_ACT) return 0;
 *         return holdem_reply_action(m.legal.check ? HOLDEM_CHECK : HOLDEM_FOLD, 0, 0);
 *     }
 *
 * Build (sdk/README.md): python -m ziglang cc --target=wasm32-wasi -mexec-model=reactor -O2
 *   -Wl,-z,stack-size=1048576 -s -I sdk/c policy.c -o policy.wasm
 *
 * Every function is `static` (internal to the file that includes the header); the two default
 * exports are weak, so several files of one policy may include the header. Define
 * HOLDEM_NO_DEFAULT_EXPORTS to write `holdem_alloc` / `holdem_abi_version` yourself.
 */
#ifndef HOLDEM_H
#define HOLDEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h> /* malloc/free: zig's wasi-libc allocator imports nothing */
#include <string.h>

#define HOLDEM_ABI_VERSION 1
#define HOLDEM_MAX_SEATS 9
#define HOLDEM_MAX_LEVELS 32
#define HOLDEM_MAX_HISTORY 256 /* entries kept in `history`; counts cover every entry */
#define HOLDEM_REPLY_BYTES 4096
#define HOLDEM_CHAT_CHARS 140
#define HOLDEM_MAX_CHAT 4     /* chat lines one reply can carry (the host admits 2 per hand) */
#define HOLDEM_MAX_DEPTH 64   /* JSON nesting deeper than this is refused */
#ifndef HOLDEM_MSG_BUFFER
#define HOLDEM_MSG_BUFFER 65536 /* static message buffer; larger messages are malloc'd */
#endif
#define HOLDEM_MAX_MESSAGE (16 * 1024 * 1024) /* holdem_alloc refuses more (the host's 0) */

#define HOLDEM_UNUSED __attribute__((unused))
#define HOLDEM_EXPORT(name) __attribute__((export_name(#name)))
#define HOLDEM_IMPORT(name) __attribute__((import_module("holdem"), import_name(#name)))

/* ------------------------------------------------------------------------------ the exports */
/* The policy defines this one: read the message at msg (len bytes, not NUL-terminated) and
 * return a reply from holdem_reply_end / holdem_reply_action, or 0 for no reply. The message
 * buffer is reused by the next call: copy what you keep. */
HOLDEM_EXPORT(holdem_on_message) int64_t holdem_on_message(const char *msg, int32_t len);

#ifndef HOLDEM_NO_DEFAULT_EXPORTS
HOLDEM_EXPORT(holdem_abi_version) __attribute__((weak)) int32_t holdem_abi_version(void) {
    return HOLDEM_ABI_VERSION;
}

/* A buffer for the next message. The static buffer serves every ordinary message; a larger one
 * replaces the previous large buffer (freed first). 0 = refused (too large, out of memory). */
HOLDEM_EXPORT(holdem_alloc) __attribute__((weak)) char *holdem_alloc(int32_t len) {
    static char small[HOLDEM_MSG_BUFFER];
    static char *big;
    static int32_t big_cap;
    if (len < 0 || len > HOLDEM_MAX_MESSAGE) return 0;
    if (len <= (int32_t)sizeof small) return small;
    if (len <= big_cap) return big;
    /* Forget the old buffer before freeing it: a timeout inside malloc then leaks at worst. */
    char *old = big;
    big = 0;
    big_cap = 0;
    free(old);
    big = (char *)malloc((size_t)len);
    big_cap = big ? len : 0;
    return big;
}
#endif

/* ---------------------------------------------------------------------------- host imports */
/* Imported only when a policy calls them (an unused import is not emitted). */
HOLDEM_IMPORT(log) void holdem_log_bytes(const char *text, int32_t len);
HOLDEM_IMPORT(time_left_ns) int64_t holdem_time_left_ns(void);

/* A debug line (NUL-terminated) into the slot's log file (1,024 bytes per line at most). */
static inline HOLDEM_UNUSED void holdem_log(const char *text) {
    holdem_log_bytes(text, (int32_t)strlen(text));
}

/* Writes the decimal text of v at out (at least 21 bytes) with a NUL; returns its length. */
static inline HOLDEM_UNUSED int holdem_format_int(char *out, int64_t v) {
    char tmp[21];
    int n = 0, len = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) out[len++] = '-';
    while (n) out[len++] = tmp[--n];
    out[len] = 0;
    return len;
}

/* Logs "<label><value>", e.g. holdem_log_int("time left ns: ", holdem_time_left_ns()). */
static inline HOLDEM_UNUSED void holdem_log_int(const char *label, int64_t value) {
    char line[128];
    size_t n = strlen(label);
    if (n > sizeof line - 22) n = sizeof line - 22;
    memcpy(line, label, n);
    holdem_format_int(line + n, value);
    holdem_log(line);
}

/* ------------------------------------------------------------------------------------- JSON */
/* A JSON value: the raw text span of one value inside the message (p == 0: absent). */
typedef struct {
    const char *p;
    int32_t n;
} holdem_json;

typedef struct {
    const char *p, *end; /* the next element (or ']' / '}') and the end of the container */
    int object;          /* 1 when iterating an object's members */
} holdem_iter;

static inline int holdem__is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static inline const char *holdem__ws(const char *s, const char *e) {
    while (s < e && holdem__is_ws(*s)) s++;
    return s;
}

/* End of the string starting at s ('"'), or 0 if unterminated. */
static inline const char *holdem__skip_string(const char *s, const char *e) {
    for (s++; s < e; s++) {
        if (*s == '\\') {
            s++;
        } else if (*s == '"') {
            return s + 1;
        }
    }
    return 0;
}

/* End of the value starting at s (no leading whitespace), or 0 if it is not valid JSON. */
static const char *holdem__skip(const char *s, const char *e, int depth) {
    if (s >= e || depth > HOLDEM_MAX_DEPTH) return 0;
    char c = *s;
    if (c == '"') return holdem__skip_string(s, e);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        s = holdem__ws(s + 1, e);
        if (s < e && *s == close) return s + 1;
        for (;;) {
            if (c == '{') {
                if (s >= e || *s != '"') return 0;
                s = holdem__skip_string(s, e);
                if (!s) return 0;
                s = holdem__ws(s, e);
                if (s >= e || *s != ':') return 0;
                s = holdem__ws(s + 1, e);
            }
            s = holdem__skip(s, e, depth + 1);
            if (!s) return 0;
            s = holdem__ws(s, e);
            if (s >= e) return 0;
            if (*s == close) return s + 1;
            if (*s != ',') return 0;
            s = holdem__ws(s + 1, e);
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        if (c == '-') s++;
        const char *digits = s;
        while (s < e && ((*s >= '0' && *s <= '9') || *s == '.' || *s == 'e' || *s == 'E' ||
                         *s == '+' || *s == '-'))
            s++;
        return s > digits ? s : 0;
    }
    static const char *const words[3] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(e - s) >= n && memcmp(s, words[i], n) == 0) return s + n;
    }
    return 0;
}

/* The whole text as one JSON value (surrounding whitespace allowed); n == 0 if invalid. */
static inline HOLDEM_UNUSED holdem_json holdem_json_parse(const char *text, int32_t len) {
    holdem_json v = {0, 0};
    if (!text || len <= 0) return v;
    const char *e = text + len, *s = holdem__ws(text, e);
    const char *end = holdem__skip(s, e, 0);
    if (!end || holdem__ws(end, e) != e) return v;
    v.p = s;
    v.n = (int32_t)(end - s);
    return v;
}

static inline HOLDEM_UNUSED int holdem_json_is_object(holdem_json v) { return v.n > 0 && *v.p == '{'; }
static inline HOLDEM_UNUSED int holdem_json_is_array(holdem_json v) { return v.n > 0 && *v.p == '['; }
static inline HOLDEM_UNUSED int holdem_json_is_string(holdem_json v) { return v.n > 0 && *v.p == '"'; }
static inline HOLDEM_UNUSED int holdem_json_is_null(holdem_json v) {
    return v.n == 4 && memcmp(v.p, "null", 4) == 0;
}

/* Iterate an array's elements or an object's members (holdem_iter_next). */
static inline HOLDEM_UNUSED holdem_iter holdem_iter_begin(holdem_json container) {
    holdem_iter it = {0, 0, 0};
    if (container.n < 2 || (*container.p != '[' && *container.p != '{')) return it;
    it.object = *container.p == '{';
    it.end = container.p + container.n - 1; /* the closing bracket */
    it.p = holdem__ws(container.p + 1, it.end);
    return it;
}

/* The next element (key = 0 for arrays; for objects the key's raw span, quotes included).
 * Returns 0 at the end. Values were validated by the parse that produced the container. */
static inline HOLDEM_UNUSED int holdem_iter_next(holdem_iter *it, holdem_json *key, holdem_json *value) {
    if (!it->p || it->p >= it->end) return 0;
    const char *s = it->p;
    if (key) key->p = 0, key->n = 0;
    if (it->object) {
        const char *k_end = holdem__skip_string(s, it->end);
        if (!k_end) return 0;
        if (key) key->p = s, key->n = (int32_t)(k_end - s);
        s = holdem__ws(k_end, it->end);
        if (s >= it->end || *s != ':') return 0;
        s = holdem__ws(s + 1, it->end);
    }
    const char *v_end = holdem__skip(s, it->end, 1);
    if (!v_end) return 0;
    if (value) value->p = s, value->n = (int32_t)(v_end - s);
    s = holdem__ws(v_end, it->end);
    if (s < it->end && *s == ',') s = holdem__ws(s + 1, it->end);
    it->p = s;
    return 1;
}

/* Does the JSON string `str` (quotes included) equal the plain text `text`? Escaped strings
 * compare unequal unless identical after a simple unescape of \" \\ \/. */
static inline HOLDEM_UNUSED int holdem_json_string_is(holdem_json str, const char *text) {
    if (!holdem_json_is_string(str)) return 0;
    const char *s = str.p + 1, *e = str.p + str.n - 1;
    for (; s < e; s++, text++) {
        char c = *s;
        if (c == '\\') {
            if (++s >= e) return 0;
            c = *s;
            if (c != '"' && c != '\\' && c != '/') return 0;
        }
        if (*text != c) return 0;
    }
    return *text == 0;
}

/* The value of `key` in an object (the first match), or an absent value (p == 0). */
static inline HOLDEM_UNUSED holdem_json holdem_json_get(holdem_json object, const char *key) {
    holdem_json k, v, none = {0, 0};
    if (!holdem_json_is_object(object)) return none;
    holdem_iter it = holdem_iter_begin(object);
    while (holdem_iter_next(&it, &k, &v))
        if (holdem_json_string_is(k, key)) return v;
    return none;
}

/* An integer value into *out (no fraction, no exponent, within int64). 1 on success. */
static inline HOLDEM_UNUSED int holdem_json_int(holdem_json v, int64_t *out) {
    if (v.n <= 0) return 0;
    const char *s = v.p, *e = v.p + v.n;
    int neg = *s == '-';
    if (neg) s++;
    if (s >= e) return 0;
    uint64_t u = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9') return 0;
        if (u > (UINT64_MAX - 9) / 10) return 0;
        u = u * 10 + (uint64_t)(*s - '0');
    }
    if (u > (uint64_t)INT64_MAX + (uint64_t)neg) return 0;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return 1;
}

/* An integer value, or `fallback` when absent or not an integer. */
static inline HOLDEM_UNUSED int64_t holdem_json_int_or(holdem_json v, int64_t fallback) {
    int64_t x;
    return holdem_json_int(v, &x) ? x : fallback;
}

/* true/false into *out. 1 on success. */
static inline HOLDEM_UNUSED int holdem_json_bool(holdem_json v, int *out) {
    if (v.n == 4 && memcmp(v.p, "true", 4) == 0) return *out = 1, 1;
    if (v.n == 5 && memcmp(v.p, "false", 5) == 0) return *out = 0, 1;
    return 0;
}

static inline int holdem__hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes a JSON string into out (UTF-8, NUL-terminated, cut at cap - 1 bytes on a character
 * boundary). Returns the decoded length, or -1 if v is not a string or is badly escaped. */
static inline HOLDEM_UNUSED int holdem_json_string(holdem_json v, char *out, int cap) {
    if (!holdem_json_is_string(v) || cap <= 0) return -1;
    const char *s = v.p + 1, *e = v.p + v.n - 1;
    int n = 0;
    while (s < e) {
        uint32_t cp;
        char enc[4];
        int k;
        if (*s != '\\') {
            /* copy one raw UTF-8 sequence whole (or drop it if it does not fit) */
            unsigned char c = (unsigned char)*s;
            k = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
            if (k > (int)(e - s)) k = (int)(e - s);
            if (n + k > cap - 1) break;
            memcpy(out + n, s, (size_t)k);
            n += k;
            s += k;
            continue;
        }
        if (++s >= e) return -1;
        switch (*s++) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = 8; break;
        case 'f': cp = 12; break;
        case 'n': cp = 10; break;
        case 'r': cp = 13; break;
        case 't': cp = 9; break;
        case 'u': {
            if (e - s < 4) return -1;
            cp = 0;
            for (int i = 0; i < 4; i++) {
                int h = holdem__hex(s[i]);
                if (h < 0) return -1;
                cp = cp * 16 + (uint32_t)h;
            }
            s += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && e - s >= 6 && s[0] == '\\' && s[1] == 'u') {
                uint32_t lo = 0;
                int ok = 1;
                for (int i = 0; i < 4; i++) {
                    int h = holdem__hex(s[2 + i]);
                    if (h < 0) ok = 0;
                    lo = lo * 16 + (uint32_t)(h < 0 ? 0 : h);
                }
                if (ok && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    s += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* a lone surrogate */
            break;
        }
        default: return -1;
        }
        if (cp < 0x80) {
            enc[0] = (char)cp, k = 1;
        } else if (cp < 0x800) {
            enc[0] = (char)(0xC0 | (cp >> 6)), enc[1] = (char)(0x80 | (cp & 63)), k = 2;
        } else if (cp < 0x10000) {
            enc[0] = (char)(0xE0 | (cp >> 12)), enc[1] = (char)(0x80 | ((cp >> 6) & 63));
            enc[2] = (char)(0x80 | (cp & 63)), k = 3;
        } else {
            enc[0] = (char)(0xF0 | (cp >> 18)), enc[1] = (char)(0x80 | ((cp >> 12) & 63));
            enc[2] = (char)(0x80 | ((cp >> 6) & 63)), enc[3] = (char)(0x80 | (cp & 63)), k = 4;
        }
        if (n + k > cap - 1) break;
        memcpy(out + n, enc, (size_t)k);
        n += k;
    }
    out[n] = 0;
    return n;
}

/* ------------------------------------------------------------------------------------ cards */
/* A card id is 4 * rank + suit: rank 0..12 = 2..A, suit 0..3 = c, d, h, s ("2c" = 0, "As" = 51);
 * -1 = unknown. */
static inline HOLDEM_UNUSED int holdem_card_rank(int card) { return card >> 2; }
static inline HOLDEM_UNUSED int holdem_card_suit(int card) { return card & 3; }

static inline HOLDEM_UNUSED int holdem_card_id(holdem_json v) {
    static const char ranks[] = "23456789TJQKA", suits[] = "cdhs";
    if (v.n != 4 || v.p[0] != '"' || v.p[3] != '"') return -1;
    const char *r = memchr(ranks, v.p[1], 13), *s = memchr(suits, v.p[2], 4);
    return r && s ? (int)(r - ranks) * 4 + (int)(s - suits) : -1;
}

/* Two characters + NUL ("As") of a card id into out[3]. */
static inline HOLDEM_UNUSED void holdem_card_text(int card, char out[3]) {
    static const char ranks[] = "23456789TJQKA", suits[] = "cdhs";
    if (card < 0 || card > 51) {
        out[0] = out[1] = '?';
    } else {
        out[0] = ranks[card >> 2];
        out[1] = suits[card & 3];
    }
    out[2] = 0;
}

/* --------------------------------------------------------------------------------- messages */
enum { HOLDEM_UNKNOWN = 0, HOLDEM_START, HOLDEM_ACT, HOLDEM_HAND_END, HOLDEM_TOURNAMENT_END };

/* Action codes of `history` and `action` events, and of replies. */
enum { HOLDEM_FOLD = 0, HOLDEM_CHECK = 1, HOLDEM_CALL = 2, HOLDEM_RAISE = 3, HOLDEM_NO_ACTION = -1 };

enum {
    HOLDEM_EV_UNKNOWN = 0,
    HOLDEM_EV_TOURNAMENT_START,
    HOLDEM_EV_HAND_START,
    HOLDEM_EV_ACTION,
    HOLDEM_EV_BOARD,
    HOLDEM_EV_SHOWDOWN,
    HOLDEM_EV_RESULT,
    HOLDEM_EV_ELIMINATED,
    HOLDEM_EV_CHAT,
    HOLDEM_EV_EMOTE,
    HOLDEM_EV_AWAY,
    HOLDEM_EV_BACK,
    HOLDEM_EV_FAULTED,
};

typedef struct {
    int32_t street, seat, code, to; /* code: HOLDEM_FOLD / CHECK / CALL / RAISE */
} holdem_history;

typedef struct {
    int fold, check;        /* fold is always offered; check: nothing to call */
    int32_t call;           /* chips a call adds (0 when checking) */
    int can_raise;          /* 0 when `raise` is null */
    int32_t raise_min, raise_max; /* raise-to range when can_raise (max = all-in) */
} holdem_legal;

typedef struct {
    char name[32];
    int32_t seats, starting_stack, hands_per_level, hand_cap;
    int32_t num_levels;
    int32_t levels[HOLDEM_MAX_LEVELS][3]; /* small blind, big blind, ante; the last repeats */
    int32_t payouts_ppm[HOLDEM_MAX_SEATS];
} holdem_format;

/* One message. Fields a message type lacks keep 0 / false (cards: -1). */
typedef struct {
    int type;          /* HOLDEM_START, HOLDEM_ACT, HOLDEM_HAND_END, HOLDEM_TOURNAMENT_END, or
                          HOLDEM_UNKNOWN (a type this SDK does not know: ignore it) */
    holdem_json raw;   /* the whole message */
    holdem_json events;/* the raw `events` array (holdem_event_next iterates it) */
    /* start */
    int32_t protocol, slot, tournaments;
    uint32_t seed[2];  /* the slot's key words (threefry2x32 key data) */
    char alias[64], variant[64];
    holdem_format format;
    int64_t shot_ns, bank_start_ns, decision_max_ns, notify_ns, start_ns; /* start: clock */
    int64_t memory_bytes, reply_bytes, chat_chars, chat_lines_per_hand;   /* start: limits */
    /* act (tournament also in hand_end / tournament_end, hand in hand_end) */
    int32_t tournament, hand, street, seat, decision, button, sb, bb;
    int32_t blinds[3];                /* small, big, ante */
    int32_t seats;                    /* entries of the per-seat arrays */
    int32_t stacks[HOLDEM_MAX_SEATS], bets[HOLDEM_MAX_SEATS], contrib[HOLDEM_MAX_SEATS];
    int in_hand[HOLDEM_MAX_SEATS], folded[HOLDEM_MAX_SEATS], allin[HOLDEM_MAX_SEATS],
        alive[HOLDEM_MAX_SEATS];
    int hole[2];                      /* card ids */
    int board[5], num_board;
    int32_t pot;
    holdem_history history[HOLDEM_MAX_HISTORY];
    int32_t num_history;              /* entries in the message (may exceed the kept ones) */
    int32_t street_raises[4][HOLDEM_MAX_SEATS]; /* history code-3 entries by street and seat */
    holdem_legal legal;
    int64_t budget_ns, bank_ns;       /* act: this call's budget, the bank before it */
    int away;
    /* tournament_end */
    int32_t places[HOLDEM_MAX_SEATS], scores_ppm[HOLDEM_MAX_SEATS];
} holdem_msg;

/* Copies up to `cap` integers of a JSON array into out; returns how many were read. */
static inline HOLDEM_UNUSED int holdem_json_int_array(holdem_json arr, int32_t *out, int cap) {
    holdem_iter it = holdem_iter_begin(arr);
    holdem_json v;
    int n = 0;
    while (n < cap && holdem_iter_next(&it, 0, &v)) out[n++] = (int32_t)holdem_json_int_or(v, 0);
    return n;
}

static inline HOLDEM_UNUSED int holdem_json_bool_array(holdem_json arr, int *out, int cap) {
    holdem_iter it = holdem_iter_begin(arr);
    holdem_json v;
    int n = 0;
    while (n < cap && holdem_iter_next(&it, 0, &v)) {
        int b = 0;
        holdem_json_bool(v, &b);
        out[n++] = b;
    }
    return n;
}

static inline int holdem__card_array(holdem_json arr, int *out, int cap) {
    holdem_iter it = holdem_iter_begin(arr);
    holdem_json v;
    int n = 0;
    while (n < cap && holdem_iter_next(&it, 0, &v)) out[n++] = holdem_card_id(v);
    return n;
}

static inline int32_t holdem__get_i32(holdem_json obj, const char *key) {
    return (int32_t)holdem_json_int_or(holdem_json_get(obj, key), 0);
}

static inline int64_t holdem__get_i64(holdem_json obj, const char *key) {
    return holdem_json_int_or(holdem_json_get(obj, key), 0);
}

static inline int holdem__get_bool(holdem_json obj, const char *key) {
    int b = 0;
    holdem_json_bool(holdem_json_get(obj, key), &b);
    return b;
}

static void holdem__parse_start(holdem_msg *m, holdem_json k, holdem_json v) {
    if (holdem_json_string_is(k, "protocol")) {
        m->protocol = (int32_t)holdem_json_int_or(v, 0);
    } else if (holdem_json_string_is(k, "slot")) {
        m->slot = (int32_t)holdem_json_int_or(v, 0);
    } else if (holdem_json_string_is(k, "tournaments")) {
        m->tournaments = (int32_t)holdem_json_int_or(v, 0);
    } else if (holdem_json_string_is(k, "seed")) {
        int64_t w;
        holdem_iter it = holdem_iter_begin(v);
        holdem_json x;
        for (int i = 0; i < 2 && holdem_iter_next(&it, 0, &x); i++)
            m->seed[i] = holdem_json_int(x, &w) ? (uint32_t)w : 0;
    } else if (holdem_json_string_is(k, "alias")) {
        holdem_json_string(v, m->alias, sizeof m->alias);
    } else if (holdem_json_string_is(k, "variant")) {
        holdem_json_string(v, m->variant, sizeof m->variant);
    } else if (holdem_json_string_is(k, "format")) {
        holdem_json_string(holdem_json_get(v, "name"), m->format.name, sizeof m->format.name);
        m->format.seats = holdem__get_i32(v, "seats");
        m->format.starting_stack = holdem__get_i32(v, "starting_stack");
        m->format.hands_per_level = holdem__get_i32(v, "hands_per_level");
        m->format.hand_cap = holdem__get_i32(v, "hand_cap");
        holdem_iter it = holdem_iter_begin(holdem_json_get(v, "levels"));
        holdem_json level;
        while (m->format.num_levels < HOLDEM_MAX_LEVELS && holdem_iter_next(&it, 0, &level))
            holdem_json_int_array(level, m->format.levels[m->format.num_levels++], 3);
        holdem_json_int_array(holdem_json_get(v, "payouts_ppm"), m->format.payouts_ppm,
                              HOLDEM_MAX_SEATS);
    } else if (holdem_json_string_is(k, "clock")) {
        m->shot_ns = holdem__get_i64(v, "shot_ns");
        m->bank_start_ns = holdem__get_i64(v, "bank_ns");
        m->decision_max_ns = holdem__get_i64(v, "decision_max_ns");
        m->notify_ns = holdem__get_i64(v, "notify_ns");
        m->start_ns = holdem__get_i64(v, "start_ns");
    } else if (holdem_json_string_is(k, "limits")) {
        m->memory_bytes = holdem__get_i64(v, "memory_bytes");
        m->reply_bytes = holdem__get_i64(v, "reply_bytes");
        m->chat_chars = holdem__get_i64(v, "chat_chars");
        m->chat_lines_per_hand = holdem__get_i64(v, "chat_lines_per_hand");
    }
}

static void holdem__parse_history(holdem_msg *m, holdem_json v) {
    holdem_iter it = holdem_iter_begin(v);
    holdem_json entry;
    while (holdem_iter_next(&it, 0, &entry)) {
        int32_t e[4] = {0, 0, 0, 0}; /* street, seat, code, to */
        holdem_json_int_array(entry, e, 4);
        if (e[2] == HOLDEM_RAISE && e[0] >= 0 && e[0] < 4 && e[1] >= 0 && e[1] < HOLDEM_MAX_SEATS)
            m->street_raises[e[0]][e[1]]++;
        if (m->num_history < HOLDEM_MAX_HISTORY) {
            holdem_history *h = &m->history[m->num_history];
            h->street = e[0], h->seat = e[1], h->code = e[2], h->to = e[3];
        }
        m->num_history++;
    }
}

static void holdem__parse_act(holdem_msg *m, holdem_json k, holdem_json v) {
    /* one pass over the members, so a long `events` array is skipped once, not per key */
    static const char *const ints[] = {"hand", "street", "seat", "decision", "button", "sb",
                                       "bb", "pot"};
    int32_t *const int_fields[] = {&m->hand, &m->street, &m->seat, &m->decision, &m->button,
                                   &m->sb, &m->bb, &m->pot};
    static const char *const seat_ints[] = {"stacks", "bets", "contrib"};
    int32_t *const seat_int_fields[] = {m->stacks, m->bets, m->contrib};
    static const char *const seat_bools[] = {"in_hand", "folded", "allin", "alive"};
    int *const seat_bool_fields[] = {m->in_hand, m->folded, m->allin, m->alive};
    for (int i = 0; i < 8; i++)
        if (holdem_json_string_is(k, ints[i])) {
            *int_fields[i] = (int32_t)holdem_json_int_or(v, 0);
            return;
        }
    for (int i = 0; i < 3; i++)
        if (holdem_json_string_is(k, seat_ints[i])) {
            int n = holdem_json_int_array(v, seat_int_fields[i], HOLDEM_MAX_SEATS);
            if (i == 0) m->seats = n;
            return;
        }
    for (int i = 0; i < 4; i++)
        if (holdem_json_string_is(k, seat_bools[i])) {
            holdem_json_bool_array(v, seat_bool_fields[i], HOLDEM_MAX_SEATS);
            return;
        }
    if (holdem_json_string_is(k, "blinds")) {
        holdem_json_int_array(v, m->blinds, 3);
    } else if (holdem_json_string_is(k, "hole")) {
        holdem__card_array(v, m->hole, 2);
    } else if (holdem_json_string_is(k, "board")) {
        m->num_board = holdem__card_array(v, m->board, 5);
    } else if (holdem_json_string_is(k, "history")) {
        holdem__parse_history(m, v);
    } else if (holdem_json_string_is(k, "legal")) {
        m->legal.fold = holdem__get_bool(v, "fold");
        m->legal.check = holdem__get_bool(v, "check");
        m->legal.call = holdem__get_i32(v, "call");
        int32_t range[2] = {0, 0};
        if (holdem_json_int_array(holdem_json_get(v, "raise"), range, 2) == 2) {
            m->legal.can_raise = 1;
            m->legal.raise_min = range[0];
            m->legal.raise_max = range[1];
        }
    } else if (holdem_json_string_is(k, "clock")) {
        m->budget_ns = holdem__get_i64(v, "budget_ns");
        m->bank_ns = holdem__get_i64(v, "bank_ns");
    } else if (holdem_json_string_is(k, "away")) {
        holdem_json_bool(v, &m->away);
    }
}

/* Reads a message. Returns 1 for a JSON object with a string `type` (m->type may still be
 * HOLDEM_UNKNOWN for a type this SDK does not know), 0 for anything else (then m->type is
 * HOLDEM_UNKNOWN). Unknown keys are skipped. Measured cost: about 150 fuel (virtual ns) per
 * message byte; an act message of 1 KB is about 0.15 ms of the 20 ms shot clock. */
static HOLDEM_UNUSED int holdem_parse(holdem_msg *m, const char *msg, int32_t len) {
    memset(m, 0, sizeof *m);
    m->hole[0] = m->hole[1] = -1;
    for (int i = 0; i < 5; i++) m->board[i] = -1;
    holdem_json root = holdem_json_parse(msg, len);
    if (!holdem_json_is_object(root)) return 0;
    holdem_json type = holdem_json_get(root, "type");
    if (!holdem_json_is_string(type)) return 0;
    m->raw = root;
    if (holdem_json_string_is(type, "start")) m->type = HOLDEM_START;
    else if (holdem_json_string_is(type, "act")) m->type = HOLDEM_ACT;
    else if (holdem_json_string_is(type, "hand_end")) m->type = HOLDEM_HAND_END;
    else if (holdem_json_string_is(type, "tournament_end")) m->type = HOLDEM_TOURNAMENT_END;
    holdem_iter it = holdem_iter_begin(root);
    holdem_json k, v;
    while (holdem_iter_next(&it, &k, &v)) {
        if (holdem_json_string_is(k, "events")) {
            m->events = v;
        } else if (holdem_json_string_is(k, "tournament")) {
            m->tournament = (int32_t)holdem_json_int_or(v, 0);
        } else if (m->type == HOLDEM_START) {
            holdem__parse_start(m, k, v);
        } else if (m->type == HOLDEM_ACT) {
            holdem__parse_act(m, k, v);
        } else if (m->type == HOLDEM_HAND_END && holdem_json_string_is(k, "hand")) {
            m->hand = (int32_t)holdem_json_int_or(v, 0);
        } else if (m->type == HOLDEM_TOURNAMENT_END && holdem_json_string_is(k, "places")) {
            m->seats = holdem_json_int_array(v, m->places, HOLDEM_MAX_SEATS);
        } else if (m->type == HOLDEM_TOURNAMENT_END && holdem_json_string_is(k, "scores_ppm")) {
            holdem_json_int_array(v, m->scores_ppm, HOLDEM_MAX_SEATS);
        }
    }
    return 1;
}

/* One event of a message's `events` array: its type and the raw object (read fields with
 * holdem_json_get / holdem_json_int_or). */
typedef struct {
    int type; /* HOLDEM_EV_* */
    holdem_json raw;
} holdem_event;

/* Iterate events: holdem_iter it = holdem_iter_begin(m.events); while (holdem_event_next(&it,
 * &ev)) { ... }. */
static inline HOLDEM_UNUSED int holdem_event_next(holdem_iter *it, holdem_event *ev) {
    static const char *const names[] = {"", "tournament_start", "hand_start", "action", "board",
                                        "showdown", "result", "eliminated", "chat", "emote",
                                        "away", "back", "faulted"};
    holdem_json v;
    if (!holdem_iter_next(it, 0, &v)) return 0;
    ev->raw = v;
    ev->type = HOLDEM_EV_UNKNOWN;
    holdem_json type = holdem_json_get(v, "type");
    for (int i = 1; i < (int)(sizeof names / sizeof names[0]); i++)
        if (holdem_json_string_is(type, names[i])) ev->type = i;
    return 1;
}

/* ------------------------------------------------------------------------------------ reply */
typedef struct {
    int action;      /* HOLDEM_NO_ACTION or HOLDEM_FOLD..HOLDEM_RAISE */
    int32_t amount;  /* raise-to, with HOLDEM_RAISE */
    int has_say, num_chat, sit_in;
    char say[HOLDEM_CHAT_CHARS * 4 + 1];
    char chat[HOLDEM_MAX_CHAT][HOLDEM_CHAT_CHARS * 4 + 1];
    char emote[32];
    char out[HOLDEM_REPLY_BYTES];
} holdem_reply_state;

static holdem_reply_state holdem__reply;

/* Copies a NUL-terminated line as at most 140 code points of valid UTF-8: control characters
 * dropped, invalid bytes replaced by '?', so the host never sees a non-UTF-8 reply. */
static inline void holdem__clean_line(const char *text, char *out) {
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    int n = 0, chars = 0;
    while (*s && chars < HOLDEM_CHAT_CHARS) {
        unsigned char c = *s;
        int k = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                : (c & 0xF8) == 0xF0 ? 4 : 0;
        uint32_t cp = k == 1 ? c : k == 2 ? (c & 0x1Fu) : k == 3 ? (c & 0x0Fu) : (c & 0x07u);
        for (int i = 1; i < k; i++) {
            if ((s[i] & 0xC0) != 0x80) { k = 0; break; }
            cp = (cp << 6) | (s[i] & 0x3Fu);
        }
        /* overlong forms, surrogates and values past U+10FFFF are invalid UTF-8 too */
        if (k > 1 && (cp < (k == 2 ? 0x80u : k == 3 ? 0x800u : 0x10000u) || cp > 0x10FFFF ||
                      (cp >= 0xD800 && cp < 0xE000)))
            k = 0;
        if (k == 0) {
            out[n++] = '?';
            chars++;
            s++;
            continue;
        }
        /* control characters are dropped (as the host drops them) and do not count */
        if (!(cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))) {
            memcpy(out + n, s, (size_t)k);
            n += k;
            chars++;
        }
        s += k;
    }
    out[n] = 0;
}

/* Starts a reply (clears every field). */
static inline HOLDEM_UNUSED void holdem_reply_begin(void) {
    holdem__reply.action = HOLDEM_NO_ACTION;
    holdem__reply.amount = 0;
    holdem__reply.has_say = holdem__reply.num_chat = holdem__reply.sit_in = 0;
    holdem__reply.emote[0] = 0;
}

/* The action (HOLDEM_FOLD, HOLDEM_CHECK, HOLDEM_CALL or HOLDEM_RAISE with its raise-to). */
static inline HOLDEM_UNUSED void holdem_reply_set_action(int action, int32_t amount) {
    holdem__reply.action = action;
    holdem__reply.amount = amount;
}

/* A table-talk line attached to the action (0 or "" = none). */
static inline HOLDEM_UNUSED void holdem_reply_say(const char *text) {
    holdem__clean_line(text, holdem__reply.say);
    holdem__reply.has_say = holdem__reply.say[0] != 0;
}

/* A standalone chat line (up to HOLDEM_MAX_CHAT per reply; the host admits 2 per hand). */
static inline HOLDEM_UNUSED void holdem_reply_chat(const char *text) {
    if (holdem__reply.num_chat >= HOLDEM_MAX_CHAT) return;
    holdem__clean_line(text, holdem__reply.chat[holdem__reply.num_chat]);
    if (holdem__reply.chat[holdem__reply.num_chat][0]) holdem__reply.num_chat++;
}

/* An emote by name ("gg", "wave", ...; see the start message's `emotes`). */
static inline HOLDEM_UNUSED void holdem_reply_emote(const char *name) {
    size_t n = strlen(name);
    if (n >= sizeof holdem__reply.emote) n = 0; /* no emote name is that long */
    memcpy(holdem__reply.emote, name, n);
    holdem__reply.emote[n] = 0;
}

/* Come back from being away. */
static inline HOLDEM_UNUSED void holdem_reply_sit_in(void) { holdem__reply.sit_in = 1; }

static inline char *holdem__put(char *o, const char *text) {
    size_t n = strlen(text);
    memcpy(o, text, n);
    return o + n;
}

static inline char *holdem__put_string(char *o, const char *text) {
    *o++ = '"';
    for (; *text; text++) {
        if (*text == '"' || *text == '\\') *o++ = '\\';
        *o++ = *text; /* already clean UTF-8 without control characters */
    }
    *o++ = '"';
    return o;
}

/* Writes the reply JSON and returns (ptr << 32) | len for holdem_on_message to return; 0 when
 * the reply has no field. The buffer is static: reply once per call. Never over 4,096 bytes: a
 * line is at most 140 code points, so at most 560 bytes escaped (only '"' and '\\' are escaped,
 * one byte each), and six lines and the keys stay under 3,600 bytes. */
static inline HOLDEM_UNUSED int64_t holdem_reply_end(void) {
    static const char *const names[] = {"fold", "check", "call", "raise"};
    holdem_reply_state *r = &holdem__reply;
    char *o = r->out, *start = r->out;
    char sep = '{';
    if (r->action >= HOLDEM_FOLD && r->action <= HOLDEM_RAISE) {
        *o++ = sep, sep = ',';
        o = holdem__put(o, "\"action\":");
        o = holdem__put_string(o, names[r->action]);
        if (r->action == HOLDEM_RAISE) {
            o = holdem__put(o, ",\"amount\":");
            o += holdem_format_int(o, r->amount);
        }
    }
    if (r->has_say) {
        *o++ = sep, sep = ',';
        o = holdem__put(o, "\"say\":");
        o = holdem__put_string(o, r->say);
    }
    if (r->num_chat) {
        *o++ = sep, sep = ',';
        o = holdem__put(o, "\"chat\":[");
        for (int i = 0; i < r->num_chat; i++) {
            if (i) *o++ = ',';
            o = holdem__put_string(o, r->chat[i]);
        }
        *o++ = ']';
    }
    if (r->emote[0]) {
        char clean[sizeof r->emote * 4];
        holdem__clean_line(r->emote, clean);
        *o++ = sep, sep = ',';
        o = holdem__put(o, "\"emote\":");
        o = holdem__put_string(o, clean);
    }
    if (r->sit_in) {
        *o++ = sep, sep = ',';
        o = holdem__put(o, "\"sit_in\":true");
    }
    if (sep == '{') return 0;
    *o++ = '}';
    return (int64_t)(((uint64_t)(uintptr_t)start << 32) | (uint64_t)(o - start));
}

/* One-shot reply: an action (amount with HOLDEM_RAISE) and an optional say line (0 = none). */
static inline HOLDEM_UNUSED int64_t holdem_reply_action(int action, int32_t amount, const char *say) {
    holdem_reply_begin();
    holdem_reply_set_action(action, amount);
    if (say) holdem_reply_say(say);
    return holdem_reply_end();
}

/* ------------------------------------------------------------------ threefry2x32 and draws */
/* JAX's threefry2x32 block: 20 rounds, key schedule (k0, k1, k0 ^ k1 ^ 0x1BD11BDA). */
static inline HOLDEM_UNUSED void holdem_threefry2x32(const uint32_t key[2], const uint32_t in[2],
                                                    uint32_t out[2]) {
    static const int rot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
    uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
    uint32_t x0 = in[0] + ks[0], x1 = in[1] + ks[1];
    for (uint32_t i = 0; i < 5; i++) {
        for (int j = 0; j < 4; j++) {
            int r = rot[i & 1][j];
            x0 += x1;
            x1 = (x1 << r) | (x1 >> (32 - r));
            x1 ^= x0;
        }
        x0 += ks[(i + 1) % 3];
        x1 += ks[(i + 2) % 3] + i + 1;
    }
    out[0] = x0;
    out[1] = x1;
}

/* jax.random.fold_in(key, data) for a threefry key given as its two data words. */
static inline HOLDEM_UNUSED void holdem_fold_in(const uint32_t key[2], uint32_t data, uint32_t out[2]) {
    const uint32_t in[2] = {0, data};
    holdem_threefry2x32(key, in, out);
}

/* jax.random.bits(key, (), uint32) (jax_threefry_partitionable on, the JAX 0.10 default). */
static inline HOLDEM_UNUSED uint32_t holdem_bits(const uint32_t key[2]) {
    const uint32_t zero[2] = {0, 0};
    uint32_t out[2];
    holdem_threefry2x32(key, zero, out);
    return out[0] ^ out[1];
}

/* The reference bots' decision key (holdemjax/bots/random_bot.py coordinate_key):
 * fold_in(fold_in(fold_in(fold_in(fold_in(slot_seed, tournament), hand), seat), street), rank),
 * where fold_in(slot_seed, tournament) is the bot's per-game key. */
static inline HOLDEM_UNUSED void holdem_decision_key(const uint32_t slot_seed[2], int32_t tournament,
                                                    int32_t hand, int32_t seat, int32_t street,
                                                    int32_t rank, uint32_t out[2]) {
    uint32_t k[2];
    holdem_fold_in(slot_seed, (uint32_t)tournament, k);
    holdem_fold_in(k, (uint32_t)hand, out);
    holdem_fold_in(out, (uint32_t)seat, k);
    holdem_fold_in(k, (uint32_t)street, out);
    holdem_fold_in(out, (uint32_t)rank, k);
    out[0] = k[0];
    out[1] = k[1];
}

/* bits(key) mod n (random_bot.draw_below), n >= 1. */
static inline HOLDEM_UNUSED uint32_t holdem_draw_below(const uint32_t key[2], uint32_t n) {
    return holdem_bits(key) % (n ? n : 1);
}

/* ------------------------------------------------------------------------ the action menu */
/* The discrete menu of the JAX envs (holdemjax/poker/actions.py, Menu.mask_and_amounts), as the
 * bundled baseline and exported PPO policies use it: entry 0 fold (not when checking is free),
 * 1 check/call, 2 the min-raise, 3..7 raise to current_bet + 1/2, 3/4, 1, 3/2, 2 pots (the pot
 * after calling), 8 all-in (`reach` = the seat's bet + stack). A sized raise is legal only
 * strictly inside (min, max) and when no earlier entry has its amount. amounts[a]: raise-to. */
enum { HOLDEM_MENU_ACTIONS = 9 };

static inline HOLDEM_UNUSED int32_t holdem__floordiv(int32_t a, int32_t b) {
    int32_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static inline HOLDEM_UNUSED void holdem_menu(const holdem_legal *lg, int32_t pot,
                                             int32_t current_bet, int32_t reach,
                                             int mask[HOLDEM_MENU_ACTIONS],
                                             int32_t amounts[HOLDEM_MENU_ACTIONS]) {
    static const int32_t num[5] = {1, 3, 1, 3, 2}, den[5] = {2, 4, 1, 2, 1};
    int32_t pot_after_call = pot + lg->call;
    int32_t targets[7];
    targets[0] = lg->raise_min;
    for (int i = 0; i < 5; i++) {
        /* floor(num * pot / den) written as actions.py writes it (no int32 overflow) */
        int32_t rem = pot_after_call % den[i];
        rem = rem < 0 ? rem + den[i] : rem;
        targets[1 + i] = current_bet + holdem__floordiv(pot_after_call, den[i]) * num[i] +
                         holdem__floordiv(rem * num[i], den[i]);
    }
    targets[6] = reach;
    int sized[7];
    for (int i = 0; i < 7; i++)
        sized[i] = i < 6 && targets[i] >= lg->raise_min && targets[i] < lg->raise_max;
    for (int i = 0; i < 7; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++)
            if (sized[j] && targets[j] == targets[i]) dup = 1;
        mask[2 + i] = lg->can_raise && ((sized[i] && !dup) || i == 6);
        amounts[2 + i] = targets[i];
    }
    mask[0] = !lg->check;
    mask[1] = 1;
    amounts[0] = amounts[1] = 0;
}

/* The reply to decision `m`: `action` (HOLDEM_FOLD, ...) and its raise-to `amount`, with sit_in
 * when the seat is away (its action is then ignored). */
static inline HOLDEM_UNUSED int64_t holdem_reply_decision(const holdem_msg *m, int action,
                                                          int32_t amount) {
    holdem_reply_begin();
    holdem_reply_set_action(action, amount);
    if (m->away) holdem_reply_sit_in();
    return holdem_reply_end();
}


#endif /* HOLDEM_H */
