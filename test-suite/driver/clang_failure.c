// A SPREAD_CLANG that is not clang (or cannot be run, or dies) gets a message naming the
// program and how it failed, instead of a silent exit status 1.
// RUN: not env SPREAD_CLANG=/bin/false %spread-cc -c %s -o %t.o 2>&1 | FileCheck --check-prefix=FALSE %s
// FALSE: spread-cc: error: '/bin/false' exited with status 1 without a message while preprocessing '{{.*}}clang_failure.c'; is it clang 19 (set SPREAD_CLANG)?
// RUN: not env SPREAD_CLANG=/nonexistent/clang-19 %spread-cc -c %s -o %t.o 2>&1 | FileCheck --check-prefix=MISSING %s
// MISSING: spread-cc: error: cannot run '/nonexistent/clang-19' (the clang to preprocess '{{.*}}clang_failure.c'): No such file or directory
// Linking only (no preprocessing run):
// RUN: not env SPREAD_CLANG=/bin/false %spread-cc %t.none.o -o %t 2>&1 | FileCheck --check-prefix=LINK %s
// LINK: spread-cc: error: '/bin/false' exited with status 1
// RUN: not env SPREAD_CLANG=/nonexistent/clang-19 %spread-cc %t.none.o -o %t 2>&1 | FileCheck --check-prefix=LINKMISSING %s
// LINKMISSING: spread-cc: error: cannot run '/nonexistent/clang-19': No such file or directory
// A clang killed by a signal:
// RUN: printf '#!/bin/sh\nkill -9 $$\n' > %t.killed.sh && chmod +x %t.killed.sh
// RUN: not env SPREAD_CLANG=%t.killed.sh %spread-cc %t.none.o -o %t 2>&1 | FileCheck --check-prefix=SIGNAL %s
// SIGNAL: spread-cc: error: '{{.*}}.killed.sh' was killed by signal 9
// The real clang's own errors are not doubled:
// RUN: not %spread-cc -DBROKEN -c %s -o %t.o 2>&1 | FileCheck --check-prefix=REAL %s
// REAL: error: use of undeclared identifier 'undeclared'
// REAL-NOT: spread-cc: error

int main(void) {
#ifdef BROKEN
  return undeclared;
#endif
  return 0;
}
