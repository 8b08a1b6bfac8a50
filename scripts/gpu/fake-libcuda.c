/* A fake CUDA driver (libcuda.so.1) to test gpu-check.sh's GPU paths on a machine without one:
 *   gcc -shared -fPIC -o DIR/libcuda.so.1 scripts/gpu/fake-libcuda.c
 *   LD_LIBRARY_PATH=DIR [FAKE_CUDA_DEVICES=N] gpu-pack/gpu-check.sh
 * It answers the driver queries gpu-check makes (N GPUs "Fake H100" sm_90, default 1; N=0:
 * cuInit fails with 100, no device); the runtimes find no usable CUDA in it, so mode gpu reports
 * "no GPU device" for both. */
#include <stdlib.h>
#include <string.h>
static int ndev(void) { const char *e = getenv("FAKE_CUDA_DEVICES"); return e ? atoi(e) : 1; }
int cuInit(unsigned f) { (void)f; return ndev() ? 0 : 100; }
int cuDeviceGetCount(int *n) { *n = ndev(); return 0; }
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuDeviceGet(int *d, int o) { *d = o; return 0; }
int cuDeviceGetName(char *n, int len, int d) { (void)d; strncpy(n, "Fake H100", len); return 0; }
int cuDeviceGetAttribute(int *v, int a, int d) { (void)d; *v = a == 75 ? 9 : 0; return 0; }
