// thread_capacity.c with libomp's hidden helper tasks turned off by the user
// (LIBOMP_USE_HIDDEN_HELPER_TASK=0, also with libomp's other spellings of "off").
// Stock libomp 19 aborts here (`kmp_runtime.cpp(4544)`); Spread then also reserves
// no thread ids for the helpers, and the program runs.
//
// REQUIRES: spread
// RUN: %clang-offload -O1 %S/thread_capacity.c -o %t
// RUN: env LIBOMP_USE_HIDDEN_HELPER_TASK=0 %libpath-run %t | FileCheck %S/thread_capacity.c --implicit-check-not=FAIL
// RUN: env LIBOMP_USE_HIDDEN_HELPER_TASK=false %preload-run %t | FileCheck %S/thread_capacity.c --implicit-check-not=FAIL
