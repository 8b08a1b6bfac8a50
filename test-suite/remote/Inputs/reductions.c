// Spread reductions (+, *, max, min, |, on int and double) with static, dynamic and adaptive
// schedules and chunk sizes 1, 7, 64 and 1000, with and without nowait, each checked against
// the serial value. Under cluster mode several chunks of one remote device were in flight at
// once, each starting from the device's one partial before the chunk ahead of it had copied its
// result back: only some chunks' results survived (reductions.test).
#include <omp.h>
#include <stdio.h>

#define N 1000
static double A[N];
static int I[N];

#define CHECK(name, got, want)                                                                   \
  do {                                                                                           \
    if ((got) != (want)) {                                                                       \
      printf("FAIL: %s chunk %d%s: %g, want %g\n", name, c, nw ? " nowait" : "", (double)(got), \
             (double)(want));                                                                    \
      bad++;                                                                                     \
    }                                                                                            \
  } while (0)

int main(void) {
  for (int i = 0; i < N; i++) {
    A[i] = i % 3 + 1;
    I[i] = (i * 37) % 101;
  }
  double want_sum = 0, want_prod = 1, want_max = -1, want_min = 1e9;
  int want_isum = 0, want_or = 0;
  for (int i = 0; i < N; i++) {
    want_sum += A[i];
    if (i < 40)
      want_prod *= A[i] > 2 ? 1.5 : 1.0;
    want_max = A[i] * (i % 11) > want_max ? A[i] * (i % 11) : want_max;
    want_min = I[i] + 3 < want_min ? I[i] + 3 : want_min;
    want_isum += I[i];
    want_or |= 1 << (I[i] % 31);
  }
  const int n = omp_get_num_devices();
  int bad = 0, runs = 0;
  int chunks[] = {1, 7, 64, 1000};
  static char tok;
  for (int ci = 0; ci < 4; ci++) {
    const int c = chunks[ci];
    for (int nw = 0; nw < 2; nw++) {
      double s = 0, p = 1, mx = -1, mn = 1e9;
      int is = 0, orr = 0;
      if (nw) {
#pragma omp target spread teams distribute parallel for devices(1 % n, n - 1) \
    spread_schedule(static, c) reduction(+ : s, is) reduction(max : mx) nowait depend(out : tok) \
    map(to : A[omp_spread_start : omp_spread_size], I[omp_spread_start : omp_spread_size])
        for (int i = 0; i < N; i++) {
          s += A[i];
          is += I[i];
          mx = A[i] * (i % 11) > mx ? A[i] * (i % 11) : mx;
        }
#pragma omp taskwait
      } else {
#pragma omp target spread teams distribute parallel for devices(1 % n, n - 1) \
    spread_schedule(static, c) reduction(+ : s, is) reduction(max : mx) \
    map(to : A[omp_spread_start : omp_spread_size], I[omp_spread_start : omp_spread_size])
        for (int i = 0; i < N; i++) {
          s += A[i];
          is += I[i];
          mx = A[i] * (i % 11) > mx ? A[i] * (i % 11) : mx;
        }
      }
#pragma omp target spread teams distribute parallel for devices(1 % n) spread_schedule(dynamic, c) \
    reduction(* : p) reduction(min : mn) reduction(| : orr) \
    map(to : A[omp_spread_start : omp_spread_size], I[omp_spread_start : omp_spread_size])
      for (int i = 0; i < N; i++) {
        if (i < 40)
          p *= A[i] > 2 ? 1.5 : 1.0;
        mn = I[i] + 3 < mn ? I[i] + 3 : mn;
        orr |= 1 << (I[i] % 31);
      }
      double s2 = 0;
#pragma omp target spread teams distribute parallel for devices(0, 1 % n) \
    spread_schedule(adaptive, c) reduction(+ : s2) map(to : A[omp_spread_start : omp_spread_size])
      for (int i = 0; i < N; i++)
        s2 += A[i];
      CHECK("+ double", s, want_sum);
      CHECK("+ int", is, want_isum);
      CHECK("max double", mx, want_max);
      CHECK("* double", p, want_prod);
      CHECK("min double", mn, want_min);
      CHECK("| int", orr, want_or);
      CHECK("+ adaptive", s2, want_sum);
      runs++;
    }
  }
  printf("reductions: %d runs on %d devices, %d wrong\n", runs, n, bad);
  return bad != 0;
}
