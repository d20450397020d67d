# The build settings of every target, whichever project includes this file: the repository's
# (CMakeLists.txt), the simulator's configured alone (runtime/sim, as its tests do) and the
# bindings' test project over a fake backend (tests/support/fake_backend). C++17 without GNU extensions,
# position-independent code (the libraries and the extension are shared objects), Release unless
# asked otherwise, and ACLNN_SANITIZE: AddressSanitizer and UndefinedBehaviorSanitizer for all.
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "" FORCE)
endif()

# A compiler cache where the machine has one: test projects, worktrees and rebuilds after a
# checkout compile the same units again (ACLNN_CCACHE=OFF to compile everything afresh).
option(ACLNN_CCACHE "Compile through ccache when it is installed" ON)
find_program(ACLNN_CCACHE_PROGRAM ccache)
if(ACLNN_CCACHE AND ACLNN_CCACHE_PROGRAM)
  set(CMAKE_C_COMPILER_LAUNCHER "${ACLNN_CCACHE_PROGRAM}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${ACLNN_CCACHE_PROGRAM}")
endif()

option(ACLNN_SANITIZE "Build everything with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
if(ACLNN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
