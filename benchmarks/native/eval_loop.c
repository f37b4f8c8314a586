/* A native timing loop for a C 7-card evaluator: `int f(int, int, int, int, int, int, int)`.
 *
 * benchmarks/bench_evaluator.py compiles this file (gcc -O3), passes the address of the
 * evaluator's C entry point (PHEvaluator's `evaluate_7cards` as the pip package `phevaluator`
 * exports it) and times `eval_loop` from Python: one call evaluates `reps` passes over `n`
 * hands in C, split over `threads` POSIX threads, so no Python runs per hand.
 * Written for holdemjax; no evaluator code here.
 */
#include <pthread.h>
#include <stdint.h>

typedef int (*eval7_fn)(int, int, int, int, int, int, int);

struct job {
    eval7_fn f;
    const int32_t *cards; /* [n, 7] card ids */
    int32_t *out;         /* [n] results of the last pass, or NULL */
    long begin, end, reps;
    long long sum;
};

static void *run(void *arg) {
    struct job *j = arg;
    long long sum = 0;
    for (long r = 0; r < j->reps; r++) {
        for (long i = j->begin; i < j->end; i++) {
            const int32_t *c = j->cards + 7 * i;
            int v = j->f(c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
            sum += v;
            if (j->out && r == j->reps - 1) j->out[i] = v;
        }
    }
    j->sum = sum;
    return 0;
}

/* Evaluates hands [0, n) `reps` times over `threads` threads (1..64); returns the sum of
 * every result (so the work cannot be optimised away), writes the last pass to `out`. */
long long eval_loop(void *f, const int32_t *cards, long n, long reps, int threads, int32_t *out) {
    struct job jobs[64];
    pthread_t ids[64];
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (struct job){(eval7_fn)f, cards, out, n * t / threads, n * (t + 1) / threads,
                               reps, 0};
    }
    for (int t = 1; t < threads; t++) pthread_create(&ids[t], 0, run, &jobs[t]);
    run(&jobs[0]);
    long long sum = jobs[0].sum;
    for (int t = 1; t < threads; t++) {
        pthread_join(ids[t], 0);
        sum += jobs[t].sum;
    }
    return sum;
}
