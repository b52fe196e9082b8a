# SPDX-License-Identifier: MIT
# GPUMETER_FUZZ: the libFuzzer targets of fuzz/ (scripts/fuzz.sh). Every object is built with
# the fuzzer's coverage instrumentation and ASan + UBSan, so that a bug anywhere under a
# parser is found, not only in the target's own file. Only clang has libFuzzer.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "GPUMETER_FUZZ needs clang (libFuzzer): configure with "
                      "-DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_C_COMPILER=clang-19")
endif()
if(GPUMETER_SANITIZE OR GPUMETER_TSAN)
  message(FATAL_ERROR "GPUMETER_FUZZ brings its own sanitizers; drop GPUMETER_SANITIZE and GPUMETER_TSAN")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                    -fno-omit-frame-pointer)
add_link_options(-fsanitize=address,undefined)
