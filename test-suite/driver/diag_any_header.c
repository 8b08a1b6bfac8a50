// A 'target device(any)' in an included file is refused with one error that says why and what
// to do; its if_device lines get no follow-on errors.
// RUN: not %spread-cc -fsyntax-only %s 2>&1 | FileCheck %s --implicit-check-not=error:
// CHECK: {{^.*}}Inputs{{/}}any_in_header.h:4:1: error: 'target device(any)' is only supported in the source file being compiled, not in included file '{{.*}}Inputs/any_in_header.h' (the driver copies the construct's statement once per if_device arm in the file it compiles: move the function into a source file, or make the header's code a source file of its own){{$}}
// CHECK: 1 error generated.

#include "Inputs/any_in_header.h"

int main(void) {
  float a[64], b[64];
  header_blocks(a, b, 64, 16);
  return 0;
}
