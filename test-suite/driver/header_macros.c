// spread.h (included by every lowered file, and by programs for the memory API) names no
// prototype parameters and no struct fields with plain identifiers, so a program's macros
// cannot break it; it includes omp.h with the plain names omp.h uses (value, size, ...) masked,
// so including <spread.h> (and not <omp.h> directly) keeps omp.h safe too. The lowered code only
// uses reserved names (__spread_*, omp_spread_*) and the clause name 'device', which the
// lowered code writes (see below).
// RUN: %spread-cc -Werror -Dc=1 -Dn=100 -Dd=2 -Dndevices=5 -Dr=6 -Dlb=7 -Dub=8 -Dchunk=9 -Dloc=10 -Dfile=11 -Dline=12 -Dkind=13 -Dflags=14 -Dreserved=15 -Dsrc=16 -Ddst=17 -Dbytes=18 -Dcount=19 -Ddevs=20 -Ddev=21 -Dmemspace=22 -Dptr=23 -Dtraits=24 -Dallocator=25 -Dvalue=47 -Dsize=48 -Dkey=49 -Da=50 -Dm=51 -Dalign=52 -Devent=53 -Dlimit=54 -Dsizes=26 -Dtypes=27 -Dnames=28 -Dmappers=29 -Dbases=30 -Dbegins=31 -Dhost_ptr=32 -Dnum_teams=33 -Dthread_limit=34 -Dkernel_args=35 -Ddst_bytes=36 -Dsrc_bytes=37 -Ddst_device=38 -Dsrc_device=39 -Dmax_traits=40 -Ddev_nums=41 -Dndevs=42 -Dexisting_memory_space=43 -Dv=44 -Dwhat=45 %s -o %t
// RUN: %t | FileCheck %s
// spread.h itself survives a macro named 'device' (omp.h uses the name):
// RUN: %spread-cc -Werror -Ddevice=3 -Dkind=4 -Dvalue=5 -DHEADER_ONLY %s -o %t.header
// RUN: %t.header | FileCheck %s
// The lowering writes a 'device(...)' clause on each inner directive (pragma omp lines are
// macro expanded): when the command line or the file defines 'device', the driver masks it
// around those directives (push_macro/undef/pop_macro), and the program's own uses keep it.
// RUN: %spread-cc -Werror -Ddevice=3 %s -o %t.device
// RUN: %t.device | FileCheck %s --check-prefix=DEVICE
// RUN: %spread-cc -Werror -DDEFINE_DEVICE %s -o %t.device2
// RUN: %t.device2 | FileCheck %s --check-prefix=DEVICE
// RUN: %spread-cc -Ddevice=3 --spread-print-lowered %s | FileCheck %s --check-prefix=LOWERED
// LOWERED: {{^}}#pragma push_macro("device"){{$}}
// LOWERED-NEXT: {{^}}#undef device{{$}}
// LOWERED-NEXT: {{^}}#line {{[0-9]+}} "{{.*}}header_macros.c"{{$}}
// LOWERED-NEXT: {{^}}#pragma omp target parallel for device(__spread_chunk_device(__spread_r_0)){{.*}}
// LOWERED-NEXT: {{^}}#pragma pop_macro("device"){{$}}
// LOWERED-NEXT: {{^}}#line {{[0-9]+}} "{{.*}}header_macros.c"{{$}}
// LOWERED-NEXT: {{^}}  for (int k = omp_spread_start;
// CHECK: ok


#ifdef DEFINE_DEVICE
#define device 3
#endif
#include <spread.h>
#include <stdio.h>

#define M 64
static double X[M];

#ifdef HEADER_ONLY
int main(void) {
  printf("ok %d\n", spread_device_wait(0));
  return 0;
}
#else
int main(void) {
  double want = 0, got = 0;
  for (int k = 0; k < M; k++) {
    X[k] = k;
    want += 2.0 * k;
  }
  int e = 0;
#pragma omp target spread parallel for devices(0, e + 1) spread_schedule(static, 8) map(tofrom: X[omp_spread_start:omp_spread_size])
  for (int k = 0; k < M; k++)
    X[k] *= 2;
#pragma omp target enter data spread devices(e) range(0 : M) map(to: X[omp_spread_start:omp_spread_size])
#pragma omp target exit data spread devices(e) range(0 : M) map(release: X[omp_spread_start:omp_spread_size])
  for (int k = 0; k < M; k++)
    got += X[k];
  printf("%s %d\n", got == want ? "ok" : "FAIL", spread_device_wait(0));
#ifdef device
  // DEVICE: device macro 3
  printf("device macro %d\n", device);
#endif
  return got != want;
}
#endif
