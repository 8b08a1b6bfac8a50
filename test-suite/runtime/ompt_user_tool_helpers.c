// With a tool of the program's own (its ompt_start_tool, or OMP_TOOL_LIBRARIES), Spread's OMPT
// tool still runs beside it where the program needs it (here: `nowait` constructs), so libomp's
// hidden helper threads stay off as without a tool (Spread completes the constructs itself;
// docs/runtime.md, "nowait and the execution model", 7.). With OMP_TOOL=disabled no tool runs
// and the helpers are off too. (Before both tools could run, the program's tool pushed Spread's
// out and the helpers were left at libomp's default; runtime/ompt_two_tools.c checks that both
// tools now receive their callbacks.) Results are right each way.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --check-prefix=OFF
// RUN: env OMP_TOOL=disabled %libpath-run %t | FileCheck %s --check-prefix=OFF
// RUN: %clang-plain -fopenmp -shared -fPIC -DTOOL_LIBRARY -include %S/../Inputs/ompt_target_tool.h -x c /dev/null -o %t.tool.so
// RUN: env OMP_TOOL_LIBRARIES=%t.tool.so %libpath-run %t | FileCheck %s --check-prefix=OFF
// RUN: env OMP_TOOL_LIBRARIES=%t.tool.so %preload-run %t | FileCheck %s --check-prefix=OFF
// RUN: %clang-offload -DOWN_TOOL -I %S/../Inputs %s -o %t.own
// RUN: %libpath-run %t.own | FileCheck %s --check-prefix=OFF
// RUN: %preload-run %t.own | FileCheck %s --check-prefix=OFF
// OFF: hidden helpers: 0
// OFF: results: 0 wrong

#include <stdio.h>
#include <stdlib.h>
#ifdef OWN_TOOL
#include "ompt_target_tool.h"
#endif

#define N 4096

int main(void) {
  const char *h = getenv("LIBOMP_USE_HIDDEN_HELPER_TASK");
  printf("hidden helpers: %s\n", h ? h : "libomp's default");
  static double a[4][N];
  for (int d = 0; d < 4; d++) {
    double *p = a[d];
#pragma omp target teams distribute parallel for map(tofrom : p[0 : N]) device(d) nowait
    for (int i = 0; i < N; i++)
      p[i] = d * N + i;
  }
#pragma omp taskwait
  int wrong = 0;
  for (int d = 0; d < 4; d++)
    for (int i = 0; i < N; i++)
      wrong += a[d][i] != d * N + i;
  printf("results: %d wrong\n", wrong);
  return wrong != 0;
}
