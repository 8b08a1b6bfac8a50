#!/usr/bin/env python3
"""Writes a C file with N spread constructs (bench/compile/run.sh measures its compile time).

usage: gen.py N [--plain] [--per-function K] > file.c
  --plain           plain 'target teams distribute parallel for' regions instead of spread ones
  --per-function K  K constructs per function (default: all in one function)
"""
import sys


def main():
    args = sys.argv[1:]
    n = int(args[0])
    plain = "--plain" in args
    per = n
    if "--per-function" in args:
        per = int(args[args.index("--per-function") + 1])
    out = ["#define N 1024", "double A[N], B[N];", ""]
    for k in range(n):
        if k % per == 0:
            if k:
                out.append("}")
            out.append(f"void f{k // per}(int n) {{")
        if plain:
            out.append(
                "#pragma omp target teams distribute parallel for map(to: A[0:n]) map(tofrom: B[0:n])"
            )
        else:
            out.append(
                f"#pragma omp target spread teams distribute parallel for devices(0, 1) "
                f"spread_schedule(static, 64) map(to: A[omp_spread_start:omp_spread_size]) "
                f"map(tofrom: B[omp_spread_start:omp_spread_size])"
            )
        out.append("  for (int i = 0; i < n; i++)")
        out.append(f"    B[i] += A[i] * {k + 1};")
    out.append("}")
    out.append("int main(void) { f0(N); return 0; }")
    print("\n".join(out))


main()
