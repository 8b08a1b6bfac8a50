// The element-wise check the auto/ tests share: prints "WHAT: ok", or the first element that
// differs from the serial loop's as a "FAIL:" line (the tests' FileCheck runs reject those), and
// counts failures in `fails` for the exit status.
#ifndef SPREAD_TEST_CHECK_FLOATS_H
#define SPREAD_TEST_CHECK_FLOATS_H
#include <stdio.h>

static int fails;

static void check(const char *what, const float *got, const float *want, int n) {
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) {
      printf("FAIL: %s: element %d is %g, expected %g\n", what, i, got[i], want[i]);
      fails++;
      return;
    }
  printf("%s: ok\n", what);
}
#endif
