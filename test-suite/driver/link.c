// Linking adds Spread's runtime directory to the library path and the run path, so programs
// run on Spread without environment variables.
// REQUIRES: spread
// RUN: %spread-cc --spread-no-pass %s -o %t
// RUN: llvm-readelf -d %t | FileCheck %s

int main(void) {
  int x = 0;
#pragma omp target map(tofrom: x)
  x = 1;
  return x - 1;
}
// CHECK: (NEEDED) Shared library: [libomptarget.so.19.1]
// CHECK: (RUNPATH) Library runpath: [{{.*}}target/spread/lib]
