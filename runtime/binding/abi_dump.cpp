// aclnn-bindgen: prints the values runtime/include gives to every name of abi_values.h, as the
// `abi_expected.h` that abi_check.h compares another header set against. Built and run by
// runtime/binding/CMakeLists.txt, always against runtime/include (our declarations).
#include <cstdio>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn_bindgen/abi_values.h"

// Usage: abi_dump [OUTPUT]; writes to stdout without OUTPUT.
int main(int argc, char** argv) {
  std::FILE* out = argc > 1 ? std::fopen(argv[1], "w") : stdout;
  if (out == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  std::fprintf(out, "/* Written by abi_dump from runtime/include: the values abi_check.h expects. */\n");
#define ACLNN_BINDGEN_DUMP_VALUE(name) \
  std::fprintf(out, "#define ACLNN_BINDGEN_EXPECTED_%s %lldLL\n", #name, static_cast<long long>(name));
  ACLNN_BINDGEN_ABI_VALUES(ACLNN_BINDGEN_DUMP_VALUE)
#undef ACLNN_BINDGEN_DUMP_VALUE
  return out == stdout || std::fclose(out) == 0 ? 0 : 1;
}
