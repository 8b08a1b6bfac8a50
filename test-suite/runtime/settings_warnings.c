// Every Spread setting with a bad value is reported once at start-up, whatever SPREAD_INFO says:
// the variable, its value, what is wrong and what is used instead. Values that name devices are
// checked once the devices are known (device 9 of 4). A good environment prints nothing.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// Device numbers that do not exist.
// RUN: env SPREAD_AUTO=0,9 %libpath-run %t 2>%t.auto | FileCheck %s
// RUN: FileCheck %s --check-prefix=AUTO --input-file=%t.auto
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_AUTO=2,3 SPREAD_CU_DEVICES=1,5 SPREAD_KIND_ALIAS=nvidia:0,7 SPREAD_HOST_DEVICE_THREADS=1,1,1 SPREAD_HOST_DEVICE_CORES="%cpu0;%cpu0;%cpu0" %libpath-run %t 2>%t.devices | FileCheck %s
// RUN: FileCheck %s --check-prefix=DEVICES --input-file=%t.devices
// RUN: grep -c 'spread: warning' %t.devices | FileCheck %s --check-prefix=FIVE
// Malformed values, all at once: one line each.
// RUN: env SPREAD_HOST_DEVICES=many SPREAD_STREAMS=0 SPREAD_SCHEDULE=guided SPREAD_INFO=chunk SPREAD_TEAMS=all SPREAD_NOWAIT=helpers SPREAD_PROFILE=full SPREAD_ALLOC_CACHE=lots SPREAD_AUTO_MIN=0 SPREAD_AUTO=on,2 SPREAD_DEVICES=host:100 SPREAD_REMOTE_TIMEOUT=soon SPREAD_SCHED_PROFILE=load: LIBOMPTARGET_INFO=all SPREAD_ANY_POLICY=best SPREAD_STEAL=yes %libpath-run %t 2>%t.bad | FileCheck %s
// RUN: FileCheck %s --check-prefix=BAD --input-file=%t.bad
// RUN: grep -c 'spread: warning' %t.bad | FileCheck %s --check-prefix=SIXTEEN
// The same reports from spread-info, which starts the runtime the same way.
// RUN: env SPREAD_AUTO=0,9 %spread-info 2>&1 >/dev/null | FileCheck %s --check-prefix=AUTO
// Good values: nothing on stderr.
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_AUTO=0,1 SPREAD_CU_DEVICES=1,0 SPREAD_KIND_ALIAS=nvidia:1 SPREAD_HOST_DEVICE_THREADS=1,1 SPREAD_STREAMS=4 SPREAD_SCHEDULE=dynamic,8 SPREAD_TEAMS=exact SPREAD_ALLOC_CACHE=64M %libpath-run %t 2>%t.good | FileCheck %s
// RUN: not grep . %t.good

// CHECK: sum 4950
// FIVE: {{^}}5{{$}}
// SIXTEEN: {{^}}16{{$}}

// AUTO: spread: warning: SPREAD_AUTO="0,9": device 9 does not exist (4 devices: 0 to 3); using device 0 only, so no kernel is spread (that takes two devices)
// AUTO-NOT: spread:

// DEVICES-DAG: spread: warning: SPREAD_AUTO="2,3": devices 2,3 do not exist (2 devices: 0 to 1); automatic spreading is off
// DEVICES-DAG: spread: warning: SPREAD_CU_DEVICES="1,5": device 5 does not exist (2 devices: 0 to 1); using 0,1,2,...
// DEVICES-DAG: spread: warning: SPREAD_KIND_ALIAS="nvidia:0,7": device 7 does not exist (2 devices: 0 to 1); ignoring that device
// DEVICES-DAG: spread: warning: SPREAD_HOST_DEVICE_THREADS="1,1,1" has 3 entries for 2 host devices; the entries after the first 2 are ignored
// DEVICES-DAG: spread: warning: SPREAD_HOST_DEVICE_CORES="{{[0-9]+}};{{[0-9]+}};{{[0-9]+}}" has 3 core lists for 2 host devices; the lists after the first 2 are ignored

// BAD-DAG: spread: warning: SPREAD_HOST_DEVICES="many" is not a number from 0 to 64; using 4
// BAD-DAG: spread: warning: SPREAD_STREAMS="0" is not a number from 1 to 64; using 8
// BAD-DAG: spread: warning: SPREAD_SCHEDULE="guided": not KIND[,CHUNK] with KIND static, dynamic, adaptive or static_opt and CHUNK > 0; using static
// BAD-DAG: spread: warning: SPREAD_INFO="chunk": unknown item "chunk" (known: chunks, memory, devices, placement, any, remote, auto); ignoring it
// BAD-DAG: spread: warning: SPREAD_TEAMS="all" is not libomp or exact; using libomp
// BAD-DAG: spread: warning: SPREAD_NOWAIT="helpers" is not spread or libomp; using spread
// BAD-DAG: spread: warning: SPREAD_PROFILE="full" is not summary (or off); no profile is printed
// BAD-DAG: spread: warning: SPREAD_ALLOC_CACHE="lots": not a size (bytes, or with K, M or G); using the default
// BAD-DAG: spread: warning: SPREAD_AUTO_MIN="0" is not a positive number of iterations; using 8192
// BAD-DAG: spread: warning: SPREAD_AUTO="on,2": "on" is not a device number (expected 1, 0 or a list such as 0,1,2); automatic spreading is off
// BAD-DAG: spread: warning: SPREAD_DEVICES="host:100": "host:100": at most 64 host devices; using the default (cuda,host)
// BAD-DAG: spread: warning: SPREAD_REMOTE_TIMEOUT="soon" is not a positive number of seconds; using 30
// BAD-DAG: spread: warning: SPREAD_SCHED_PROFILE="load:": names no file; the schedules' rates are neither read nor written
// BAD-DAG: spread: warning: LIBOMPTARGET_INFO="all" is not a number (decimal, 0x hexadecimal, or -1); using 0
// BAD-DAG: spread: warning: SPREAD_ANY_POLICY="best": expected model, tokens or first; using the default
// BAD-DAG: spread: warning: SPREAD_STEAL="yes": expected 0 or 1; using the default

#include <omp.h>
#include <stdio.h>

int main(void) {
  int sum = 0;
  int n = omp_get_num_devices();
  for (int d = 0; d < n; d++) {
    int part = 0;
#pragma omp target map(tofrom : part) device(d)
    for (int i = d; i < 100; i += n)
      part += i;
    sum += part;
  }
  printf("sum %d\n", sum);
  return 0;
}
