// spread-c++: C++ sources, size_t loops, lambdas and templates in the body.
// RUN: %spread-cxx --spread-print-lowered %s | FileCheck %s
// RUN: %spread-cxx -std=c++17 -Wall -Wextra -Werror -c %s -o %t.o

#include <cstddef>
#include <vector>

template <typename T> T twice(T x) { return x + x; }

void scale(std::vector<double> &v) {
  double *p = v.data();
  std::size_t n = v.size();
#pragma omp target spread teams distribute parallel for devices(0, 1) spread_schedule(static, 64) map(tofrom: p[omp_spread_start:omp_spread_size])
  for (std::size_t i = 0; i < n; ++i) {
    auto f = [](double x) { return twice<double>(x); };
    p[i] = f(p[i]);
  }
}
// CHECK: {{^}}{ static const __spread_construct_t __spread_c_0 = { "{{.*}}cxx.cpp", 13, __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_STATIC }; const int32_t __spread_devs_0[] = { (int32_t)(0), (int32_t)(1) }; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (0), (n), __spread_devs_0, 2, (64));
// CHECK-NEXT: {{^}}#line 13 "{{.*}}cxx.cpp"
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) map(tofrom: p[omp_spread_start:omp_spread_size]){{$}}
// CHECK-NEXT: {{^}}  for (std::size_t i = omp_spread_start; i < (std::size_t)(omp_spread_start + omp_spread_size); ++i) {
// CHECK-NEXT: {{^}}    auto f = [](double x) { return twice<double>(x); };
// CHECK-NEXT: {{^}}    p[i] = f(p[i]);
// CHECK-NEXT: {{^}}  } } __spread_region_end(__spread_r_0); }{{$}}

// A raw string over several lines before a construct, and a '}' in a raw string in the body.
static const char *text = R"(
#pragma omp target spread devices(nope)
})";

int first(int n, char *c) {
#pragma omp target spread devices(0) map(tofrom: c[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) c[i] = R"(})"[0];
  return text[0];
}
// CHECK-LABEL: {{^}}int first(int n, char *c) {
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_1 = { "{{.*}}cxx.cpp", 33, __SPREAD_KIND_TARGET, 0, 0 };
// CHECK-NEXT: {{^}}#line 33 "{{.*}}cxx.cpp"
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_chunk_device(__spread_r_1)) map(tofrom: c[omp_spread_start:omp_spread_size]){{$}}
// CHECK-NEXT: {{^}}  for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++) c[i] = R"(})"[0]; } __spread_region_end(__spread_r_1); }{{$}}
// CHECK-NEXT: {{^}}  return text[0];
