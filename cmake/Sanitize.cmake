# CUSK_SANITIZE=ON: AddressSanitizer + UndefinedBehaviorSanitizer on host C++ (scripts/sanitize-cpu,
# run by CI). Only C++ sources are instrumented: .cu files keep their usual compile line, so ccache
# serves them from the main build, and device code is compute-sanitizer's job (scripts/h200.sh).
# Any undefined behaviour aborts (no recovery): a finding fails the test that hit it.
option(CUSK_SANITIZE "instrument host C++ with -fsanitize=address,undefined" OFF)
if(CUSK_SANITIZE)
  # -g1: line tables only, for file:line in the reports. -O1 (after the build type's -O3, so it
  # wins): the level ASan recommends, and an instrumented -O1 compile is quicker for CI.
  set(_cusk_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1 -O1)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_cusk_san}>")
  # Every target here links with the C++ driver (CXX outranks CUDA as link language).
  add_link_options("$<$<LINK_LANGUAGE:CXX>:-fsanitize=address,undefined>")
  message(STATUS "cuskimage: host C++ built with AddressSanitizer and UBSan")
endif()
