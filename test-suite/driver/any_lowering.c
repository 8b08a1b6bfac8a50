// Task sharing (seed 002, docs/task-sharing-lowering.md): 'target device(any)' becomes one
// task per instance that asks the runtime for a device and a version
// (__spread_any_acquire) and runs that version's arm of a switch, a 'target device(d)' with the
// version's construct-set around its own copy of the statement.
// RUN: %spread-cc --spread-print-lowered %s 2>%t.err | FileCheck --strict-whitespace %s
// RUN: FileCheck --check-prefix=WARN %s < %t.err
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Werror %s
// RUN: %spread-cxx -x c++ --spread-no-pass -fsyntax-only -Wall -Werror %s
// RUN: %spread-cc --spread-no-pass -c %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck --check-prefix=SYMS %s
// SYMS-DAG: U __spread_any_acquire
// SYMS-DAG: U __spread_any_release
// SYMS-DAG: U __spread_any_deferred

#include <math.h>
#define BS 64

// Fig. 2 of the paper (x, y, z mapped, as standard OpenMP needs).
void nbody(int n, float dt, float *x, float *y, float *z, float *vx, float *vy, float *vz) {
for (int k = 0; k < n; k+=BS)
{
#pragma omp target device(any) map(tofrom:vx[k:BS],vy[k:BS],vz[k:BS]) map(to: x[0:n], y[0:n], z[0:n]) nowait
#pragma omp if_device(NVIDIA,cc35) teams distribute parallel for resources(2)
#pragma omp if_device(host) parallel for resources(40)
for (int i = k; i < k+BS; ++i) {
   float Fx = 0.0f; float Fy = 0.0f; float Fz = 0.0f;
   #pragma omp simd reduction(+:Fx,Fy,Fz)
   for (int j = 0; j < n; j++) {
     float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
     float inv = 1.0f/sqrtf(dx*dx+dy*dy+dz*dz+1e-9f); float inv3 = inv*inv*inv;
     Fx += dx*inv3; Fy += dy*inv3; Fz += dz*inv3;
   }
   vx[i] += dt*Fx; vy[i] += dt*Fy; vz[i] += dt*Fz;
} }
}

// Fig. 1: several entries on one pragma, continued; no host entry (a warning; the first
// set, reduced, is the host fallback).
void fig1(int n, double *a, const double *b) {
#pragma omp target device( any ) map(tofrom: a[0:n]) map(to: b[0:n])
#pragma omp \
    if_device(nvidia, sm_90) teams distribute parallel for num_teams(8) thread_limit(128) resources(10) \
    if_device(cpu) distribute parallel for resources(50)
  for (int i = 0; i < n; i++)
    a[i] += b[i];
}

// The single-set form: MACC's 'distribute' without teams, and teams ... simd with resources.
void single(int n, double *a, double s) {
#pragma omp target device(any) distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; i++)
    a[i] *= s;
#pragma omp target device(any) teams distribute parallel for simd map(tofrom: a[0:n]) nowait resources(5) num_teams(4)
  for (int i = 0; i < n; i++)
    a[i] += s;
#pragma omp taskwait
}

// A structured block, no nowait: no task; with depend: an undeferred task; if(target: c).
double blocks(int n, double *a, int c) {
  double sum = 0;
#pragma omp target device(any) map(tofrom: sum) map(to: a[0:n]) if(target: c > 1)
  {
    for (int i = 0; i < n; i++) sum += a[i];
  }
#pragma omp target device(any) map(tofrom: a[0:n]) depend(inout: a[0])
#pragma omp if_device(host) resources(auto) if_device(cpu) resources(n / 4)
  { a[0] = sum; }
  return sum;
}

// A local array mapped tofrom is shared with the task (its results land in it); a reduction
// of the construct-set is mapped tofrom, as on a combined construct; map item kinds.
struct S { int v; double w[4]; };
double local(int n, int k, struct S *p) {
  double a[256], s = 0;
  int v = 0;
#pragma omp target device(any) map(from: a) map(tofrom: p->w[1:2], v) map(alloc: a[0:]) nowait
#pragma omp if_device(host) parallel for reduction(+: s) if_device(nvptx64) teams loop reduction(+: s)
  for (int i = 0; i < 256; i++) { a[i] = i * k; s += a[i]; }
#pragma omp taskwait
  return a[n] + s + v;
}

// The lowered text (checks at the end of the file: they would move the lines above).
// CHECK-LABEL: {{^}}void nbody(
// CHECK-NEXT: {{^}}for (int k = 0; k < n; k+=BS){{$}}
// CHECK-NEXT: {{^}}{{[{]}}{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_any_version_t __spread_any_v_0[] = { { __SPREAD_ANY_NVIDIA, 35, 0, 0 }, { __SPREAD_ANY_HOST, 0, 1, 0 } }; static const __spread_any_site_t __spread_any_s_0 = { "{{.*}}any_lowering.c", 22, 20, 2, __spread_any_v_0 };{{$}}
// CHECK-NEXT: {{^}}#line 22 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp task shared(vx, vy, vz, x, y, z){{$}}
// CHECK-NEXT: {{^}}#line 22 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}} { __spread_any_deferred(); const int64_t __spread_any_cost_0[] = { (2), (40) }; const __spread_any_map_t __spread_any_map_0[] = { { (const void *)&(vx)[k], (int64_t)(64) * (int64_t)sizeof((vx)[k]), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM }, { (const void *)&(vy)[k], (int64_t)(64) * (int64_t)sizeof((vy)[k]), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM }, { (const void *)&(vz)[k], (int64_t)(64) * (int64_t)sizeof((vz)[k]), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM }, { (const void *)&(x)[0], (int64_t)(n) * (int64_t)sizeof((x)[0]), __SPREAD_ANY_MAP_TO }, { (const void *)&(y)[0], (int64_t)(n) * (int64_t)sizeof((y)[0]), __SPREAD_ANY_MAP_TO }, { (const void *)&(z)[0], (int64_t)(n) * (int64_t)sizeof((z)[0]), __SPREAD_ANY_MAP_TO } }; __spread_any_pick_t __spread_any_p_0 = __spread_any_acquire(&__spread_any_s_0, __spread_any_cost_0, __spread_any_map_0, 6, __SPREAD_ANY_NOWAIT); const int32_t __spread_any_t_0 = __spread_any_p_0.__spread_threads; switch (__spread_any_p_0.__spread_arm) { case 0: { if (__spread_any_async(&__spread_any_p_0)) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_0.__spread_device) map(tofrom:vx[k:64],vy[k:64],vz[k:64]) map(to: x[0:n], y[0:n], z[0:n]) nowait{{$}}
// CHECK-NEXT: {{^}}#line 23 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams distribute parallel for{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}for (int i = k; i < k+64; ++i) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}   float Fx = 0.0f; float Fy = 0.0f; float Fz = 0.0f;{{$}}
// CHECK-NEXT: {{^}}#pragma omp simd reduction(+:Fx,Fy,Fz){{$}}
// CHECK-NEXT: {{^}}   for (int j = 0; j < n; j++) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}     float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];{{$}}
// CHECK-NEXT: {{^}}     float inv = 1.0f/sqrtf(dx*dx+dy*dy+dz*dz+1e-9f); float inv3 = inv*inv*inv;{{$}}
// CHECK-NEXT: {{^}}     Fx += dx*inv3; Fy += dy*inv3; Fz += dz*inv3;{{$}}
// CHECK-NEXT: {{^}}   }{{$}}
// CHECK-NEXT: {{^}}   vx[i] += dt*Fx; vy[i] += dt*Fy; vz[i] += dt*Fz;{{$}}
// CHECK-NEXT: {{^}}} } else {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 23 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_0.__spread_device) map(tofrom:vx[k:64],vy[k:64],vz[k:64]) map(to: x[0:n], y[0:n], z[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 23 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams distribute parallel for{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}for (int i = k; i < k+64; ++i) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}   float Fx = 0.0f; float Fy = 0.0f; float Fz = 0.0f;{{$}}
// CHECK-NEXT: {{^}}#pragma omp simd reduction(+:Fx,Fy,Fz){{$}}
// CHECK-NEXT: {{^}}   for (int j = 0; j < n; j++) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}     float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];{{$}}
// CHECK-NEXT: {{^}}     float inv = 1.0f/sqrtf(dx*dx+dy*dy+dz*dz+1e-9f); float inv3 = inv*inv*inv;{{$}}
// CHECK-NEXT: {{^}}     Fx += dx*inv3; Fy += dy*inv3; Fz += dz*inv3;{{$}}
// CHECK-NEXT: {{^}}   }{{$}}
// CHECK-NEXT: {{^}}   vx[i] += dt*Fx; vy[i] += dt*Fy; vz[i] += dt*Fz;{{$}}
// CHECK-NEXT: {{^}}} } } break; case 1: default: { if (__spread_any_async(&__spread_any_p_0)) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 24 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_0.__spread_device) map(tofrom:vx[k:64],vy[k:64],vz[k:64]) map(to: x[0:n], y[0:n], z[0:n]) nowait{{$}}
// CHECK-NEXT: {{^}}#line 24 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp parallel for num_threads(__spread_any_t_0){{$}}
// CHECK-NEXT: {{^}}for (int i = k; i < k+64; ++i) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}   float Fx = 0.0f; float Fy = 0.0f; float Fz = 0.0f;{{$}}
// CHECK-NEXT: {{^}}#pragma omp simd reduction(+:Fx,Fy,Fz){{$}}
// CHECK-NEXT: {{^}}   for (int j = 0; j < n; j++) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}     float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];{{$}}
// CHECK-NEXT: {{^}}     float inv = 1.0f/sqrtf(dx*dx+dy*dy+dz*dz+1e-9f); float inv3 = inv*inv*inv;{{$}}
// CHECK-NEXT: {{^}}     Fx += dx*inv3; Fy += dy*inv3; Fz += dz*inv3;{{$}}
// CHECK-NEXT: {{^}}   }{{$}}
// CHECK-NEXT: {{^}}   vx[i] += dt*Fx; vy[i] += dt*Fy; vz[i] += dt*Fz;{{$}}
// CHECK-NEXT: {{^}}} } else {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 24 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_0.__spread_device) map(tofrom:vx[k:64],vy[k:64],vz[k:64]) map(to: x[0:n], y[0:n], z[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 24 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp parallel for num_threads(__spread_any_t_0){{$}}
// CHECK-NEXT: {{^}}#line 24 "{{.*}}any_lowering.c"{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}for (int i = k; i < k+BS; ++i) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}   float Fx = 0.0f; float Fy = 0.0f; float Fz = 0.0f;{{$}}
// CHECK-NEXT: {{^}}   #pragma omp simd reduction(+:Fx,Fy,Fz){{$}}
// CHECK-NEXT: {{^}}   for (int j = 0; j < n; j++) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}     float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];{{$}}
// CHECK-NEXT: {{^}}     float inv = 1.0f/sqrtf(dx*dx+dy*dy+dz*dz+1e-9f); float inv3 = inv*inv*inv;{{$}}
// CHECK-NEXT: {{^}}     Fx += dx*inv3; Fy += dy*inv3; Fz += dz*inv3;{{$}}
// CHECK-NEXT: {{^}}   }{{$}}
// CHECK-NEXT: {{^}}   vx[i] += dt*Fx; vy[i] += dt*Fy; vz[i] += dt*Fz;{{$}}
// CHECK-NEXT: {{^}}} } } break; } __spread_any_release(&__spread_any_p_0); } } }{{$}}
// CHECK-NEXT: {{^}}}{{$}}
// CHECK-LABEL: {{^}}void fig1(
// CHECK-NEXT: {{^}}{ static const __spread_any_version_t __spread_any_v_1[] = { { __SPREAD_ANY_NVIDIA, 90, 0, 0 }, { __SPREAD_ANY_CPU, 0, 1, 0 }, { __SPREAD_ANY_HOST, 0, 2, __SPREAD_ANY_FALLBACK } }; static const __spread_any_site_t __spread_any_s_1 = { "{{.*}}any_lowering.c", 40, 20, 3, __spread_any_v_1 }; { const int64_t __spread_any_cost_1[] = { (10), (50), 0 }; const __spread_any_map_t __spread_any_map_1[] = { { (const void *)&(a)[0], (int64_t)(n) * (int64_t)sizeof((a)[0]), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM }, { (const void *)&(b)[0], (int64_t)(n) * (int64_t)sizeof((b)[0]), __SPREAD_ANY_MAP_TO } }; __spread_any_pick_t __spread_any_p_1 = __spread_any_acquire(&__spread_any_s_1, __spread_any_cost_1, __spread_any_map_1, 2, 0); const int32_t __spread_any_t_1 = __spread_any_p_1.__spread_threads; switch (__spread_any_p_1.__spread_arm) { case 0: {{[{]}}{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_1.__spread_device) map(tofrom: a[0:n]) map(to: b[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 42 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams distribute parallel for num_teams(8) thread_limit(128){{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] += b[i]; } break; case 1: {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 42 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_1.__spread_device) map(tofrom: a[0:n]) map(to: b[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 42 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams distribute parallel for{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] += b[i]; } break; case 2: default: {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 40 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_1.__spread_device) map(tofrom: a[0:n]) map(to: b[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 40 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp parallel for num_threads(__spread_any_t_1){{$}}
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] += b[i]; } break; } __spread_any_release(&__spread_any_p_1); } }{{$}}
// CHECK-NEXT: {{^}}}{{$}}
// CHECK-LABEL: {{^}}void single(
// CHECK-NEXT: {{^}}{ static const __spread_any_version_t __spread_any_v_2[] = { { __SPREAD_ANY_NVIDIA, 0, 0, 0 }, { __SPREAD_ANY_CPU, 0, 0, 0 }, { __SPREAD_ANY_HOST, 0, 1, 0 } }; static const __spread_any_site_t __spread_any_s_2 = { "{{.*}}any_lowering.c", 50, 20, 3, __spread_any_v_2 }; { const int64_t __spread_any_cost_2[] = { 0, 0, 0 }; const __spread_any_map_t __spread_any_map_2[] = { { (const void *)&(a)[0], (int64_t)(n) * (int64_t)sizeof((a)[0]), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM } }; __spread_any_pick_t __spread_any_p_2 = __spread_any_acquire(&__spread_any_s_2, __spread_any_cost_2, __spread_any_map_2, 1, 0); const int32_t __spread_any_t_2 = __spread_any_p_2.__spread_threads; switch (__spread_any_p_2.__spread_arm) { case 0: {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 50 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_2.__spread_device) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 50 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams distribute parallel for{{$}}
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] *= s; } break; case 1: default: {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 50 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_2.__spread_device) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 50 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp parallel for num_threads(__spread_any_t_2){{$}}
// CHECK-NEXT: {{^}}#line 50 "{{.*}}any_lowering.c"{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] *= s; } break; } __spread_any_release(&__spread_any_p_2); } }{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_any_version_t __spread_any_v_3[] = { { __SPREAD_ANY_NVIDIA, 0, 0, 0 }, { __SPREAD_ANY_CPU, 0, 0, 0 }, { __SPREAD_ANY_HOST, 0, 1, 0 } }; static const __spread_any_site_t __spread_any_s_3 = { "{{.*}}any_lowering.c", 53, 20, 3, __spread_any_v_3 };{{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp task shared(a){{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}} { __spread_any_deferred(); const int64_t __spread_any_cost_3[] = { (5), (5), (5) }; const __spread_any_map_t __spread_any_map_3[] = { { (const void *)&(a)[0], (int64_t)(n) * (int64_t)sizeof((a)[0]), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM } }; __spread_any_pick_t __spread_any_p_3 = __spread_any_acquire(&__spread_any_s_3, __spread_any_cost_3, __spread_any_map_3, 1, __SPREAD_ANY_NOWAIT); const int32_t __spread_any_t_3 = __spread_any_p_3.__spread_threads; switch (__spread_any_p_3.__spread_arm) { case 0: { if (__spread_any_async(&__spread_any_p_3)) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_3.__spread_device) map(tofrom: a[0:n]) nowait{{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams distribute parallel for simd num_teams(4){{$}}
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] += s; } else {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_3.__spread_device) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams distribute parallel for simd num_teams(4){{$}}
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] += s; } } break; case 1: default: { if (__spread_any_async(&__spread_any_p_3)) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_3.__spread_device) map(tofrom: a[0:n]) nowait{{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp parallel for simd num_threads(__spread_any_t_3){{$}}
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] += s; } else {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_3.__spread_device) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp parallel for simd num_threads(__spread_any_t_3){{$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}any_lowering.c"{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = 0; i < n; i++){{$}}
// CHECK-NEXT: {{^}}    a[i] += s; } } break; } __spread_any_release(&__spread_any_p_3); } }{{$}}
// CHECK-NEXT: {{^}}#pragma omp taskwait{{$}}
// CHECK-NEXT: {{^}}}{{$}}
// CHECK-LABEL: {{^}}double blocks(
// CHECK-NEXT: {{^}}  double sum = 0;{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_any_version_t __spread_any_v_4[] = { { __SPREAD_ANY_NVIDIA, 0, 0, 0 }, { __SPREAD_ANY_CPU, 0, 0, 0 }, { __SPREAD_ANY_HOST, 0, 1, 0 } }; static const __spread_any_site_t __spread_any_s_4 = { "{{.*}}any_lowering.c", 62, 20, 3, __spread_any_v_4 }; { const int64_t __spread_any_cost_4[] = { 0, 0, 0 }; const __spread_any_map_t __spread_any_map_4[] = { { (const void *)&(sum), (int64_t)sizeof(sum), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM }, { (const void *)&(a)[0], (int64_t)(n) * (int64_t)sizeof((a)[0]), __SPREAD_ANY_MAP_TO } }; __spread_any_pick_t __spread_any_p_4 = __spread_any_acquire(&__spread_any_s_4, __spread_any_cost_4, __spread_any_map_4, 2, ((c > 1) ? 0 : __SPREAD_ANY_IF_FALSE)); switch (__spread_any_p_4.__spread_arm) { case 0: {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 62 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_4.__spread_device) map(tofrom: sum) map(to: a[0:n]){{$}}
// CHECK-NEXT: {{^}}  {{[{]}}{{$}}
// CHECK-NEXT: {{^}}    for (int i = 0; i < n; i++) sum += a[i];{{$}}
// CHECK-NEXT: {{^}}  } } break; case 1: default: {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 62 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_4.__spread_device) map(tofrom: sum) map(to: a[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 62 "{{.*}}any_lowering.c"{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  {{[{]}}{{$}}
// CHECK-NEXT: {{^}}    for (int i = 0; i < n; i++) sum += a[i];{{$}}
// CHECK-NEXT: {{^}}  } } break; } __spread_any_release(&__spread_any_p_4); } }{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_any_version_t __spread_any_v_5[] = { { __SPREAD_ANY_HOST, 0, 0, __SPREAD_ANY_COST_AUTO }, { __SPREAD_ANY_CPU, 0, 1, 0 } }; static const __spread_any_site_t __spread_any_s_5 = { "{{.*}}any_lowering.c", 66, 20, 2, __spread_any_v_5 };{{$}}
// CHECK-NEXT: {{^}}#line 66 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp task if(0) shared(a) depend(inout: a[0]){{$}}
// CHECK-NEXT: {{^}}#line 66 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}} { const int64_t __spread_any_cost_5[] = { 0, (n / 4) }; const __spread_any_map_t __spread_any_map_5[] = { { (const void *)&(a)[0], (int64_t)(n) * (int64_t)sizeof((a)[0]), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM } }; __spread_any_pick_t __spread_any_p_5 = __spread_any_acquire(&__spread_any_s_5, __spread_any_cost_5, __spread_any_map_5, 1, 0); switch (__spread_any_p_5.__spread_arm) { case 0: {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_5.__spread_device) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}  { a[0] = sum; } } break; case 1: default: {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 67 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_5.__spread_device) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}#line 67 "{{.*}}any_lowering.c"{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  { a[0] = sum; } } break; } __spread_any_release(&__spread_any_p_5); } }{{$}}
// CHECK-NEXT: {{^}}  return sum;{{$}}
// CHECK-NEXT: {{^}}}{{$}}
// CHECK-LABEL: {{^}}double local(
// CHECK-NEXT: {{^}}  double a[256], s = 0;{{$}}
// CHECK-NEXT: {{^}}  int v = 0;{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_any_version_t __spread_any_v_6[] = { { __SPREAD_ANY_HOST, 0, 0, 0 }, { __SPREAD_ANY_NVIDIA, 0, 1, 0 } }; static const __spread_any_site_t __spread_any_s_6 = { "{{.*}}any_lowering.c", 78, 20, 2, __spread_any_v_6 };{{$}}
// CHECK-NEXT: {{^}}#line 78 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp task shared(a, p, v, s){{$}}
// CHECK-NEXT: {{^}}#line 78 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}} { __spread_any_deferred(); const int64_t __spread_any_cost_6[] = { 0, 0 }; const __spread_any_map_t __spread_any_map_6[] = { { (const void *)&(a), (int64_t)sizeof(a), __SPREAD_ANY_MAP_FROM }, { (const void *)&(p->w)[1], (int64_t)(2) * (int64_t)sizeof((p->w)[1]), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM }, { (const void *)&(v), (int64_t)sizeof(v), __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM } }; __spread_any_pick_t __spread_any_p_6 = __spread_any_acquire(&__spread_any_s_6, __spread_any_cost_6, __spread_any_map_6, 3, __SPREAD_ANY_NOWAIT); const int32_t __spread_any_t_6 = __spread_any_p_6.__spread_threads; switch (__spread_any_p_6.__spread_arm) { case 0: { if (__spread_any_async(&__spread_any_p_6)) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_6.__spread_device) map(from: a) map(tofrom: p->w[1:2], v) map(alloc: a[0:]) map(tofrom: s) nowait{{$}}
// CHECK-NEXT: {{^}}#line 79 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp parallel for reduction(+: s) num_threads(__spread_any_t_6){{$}}
// CHECK-NEXT: {{^}}  for (int i = 0; i < 256; i++) { a[i] = i * k; s += a[i]; } } else {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 79 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_6.__spread_device) map(from: a) map(tofrom: p->w[1:2], v) map(alloc: a[0:]) map(tofrom: s){{$}}
// CHECK-NEXT: {{^}}#line 79 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp parallel for reduction(+: s) num_threads(__spread_any_t_6){{$}}
// CHECK-NEXT: {{^}}  for (int i = 0; i < 256; i++) { a[i] = i * k; s += a[i]; } } } break; case 1: default: { if (__spread_any_async(&__spread_any_p_6)) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 79 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_6.__spread_device) map(from: a) map(tofrom: p->w[1:2], v) map(alloc: a[0:]) map(tofrom: s) nowait{{$}}
// CHECK-NEXT: {{^}}#line 79 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams loop reduction(+: s){{$}}
// CHECK-NEXT: {{^}}  for (int i = 0; i < 256; i++) { a[i] = i * k; s += a[i]; } } else {{[{]}}{{$}}
// CHECK-NEXT: {{^}}#line 79 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_any_p_6.__spread_device) map(from: a) map(tofrom: p->w[1:2], v) map(alloc: a[0:]) map(tofrom: s){{$}}
// CHECK-NEXT: {{^}}#line 79 "{{.*}}any_lowering.c"{{$}}
// CHECK-NEXT: {{^}}#pragma omp teams loop reduction(+: s){{$}}
// CHECK-NEXT: {{^}}#line 79 "{{.*}}any_lowering.c"{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = 0; i < 256; i++) { a[i] = i * k; s += a[i]; } } } break; } __spread_any_release(&__spread_any_p_6); } }{{$}}
// CHECK-NEXT: {{^}}#pragma omp taskwait{{$}}
// CHECK-NEXT: {{^}}  return a[n] + s + v;{{$}}
// CHECK-NEXT: {{^}}}{{$}}

// WARN: any_lowering.c:40:20: warning: no 'if_device(host)': the host does not share this construct's instances; it runs them (with the first entry's construct-set, reduced for the host) only under if(false) or when no device can
// WARN: any_lowering.c:67:29: warning: 'resources(auto)' is treated as 0: no token limit (tokens are not tuned automatically)
// WARN-NOT: warning

// The nowait instances' async test (kept here, below the code, so that the source lines the
// CHECK lines name stay put).
// SYMS-DAG: U __spread_any_async
