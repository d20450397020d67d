// What the examples' units need besides the examples' own headers (runtime/cmake/examples.cmake).
#pragma once

namespace aclnn_examples {

// An example's main, now a function of its namespace, whichever of the two forms it was written in.
inline int run(int (*main)(), int, char**) { return main(); }
inline int run(int (*main)(int, char**), int argc, char** argv) { return main(argc, argv); }

}  // namespace aclnn_examples
