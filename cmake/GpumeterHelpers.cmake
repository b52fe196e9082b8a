# SPDX-License-Identifier: MIT
# One helper per target kind, so that every target gets the same warnings and options.

set(GPUMETER_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough
    -Wno-missing-field-initializers)

# ThreadSanitizer for the threaded code (the sampler, the task server). It cannot be combined
# with GPUMETER_SANITIZE: TSan and ASan exclude each other.
option(GPUMETER_TSAN "Build with ThreadSanitizer" OFF)
if(GPUMETER_TSAN AND GPUMETER_SANITIZE)
  message(FATAL_ERROR "GPUMETER_TSAN and GPUMETER_SANITIZE cannot be combined; use two build trees")
endif()

# Unity builds: a library's sources are compiled a batch at a time, so that the heavy headers
# (fmt, nlohmann/json, CLI11, the standard library) are parsed once per batch instead of once
# per file; this halves the libraries' compile time (docs/benchmarks.md). A file that cannot share a translation unit
# (a type of its anonymous namespace in a header's class, conflicting system headers) is
# marked SKIP_UNITY_BUILD_INCLUSION where its library lists it.
option(GPUMETER_UNITY "Compile each library's sources in batches (unity build)" ON)
set(GPUMETER_UNITY_BATCH 16 CACHE STRING "Sources per unity batch")

function(gpumeter_unity target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${GPUMETER_UNITY}
                                             UNITY_BUILD_BATCH_SIZE ${GPUMETER_UNITY_BATCH})
endfunction()

function(gpumeter_target_options target)
  target_compile_options(${target} PRIVATE ${GPUMETER_WARNINGS})
  if(GPUMETER_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(GPUMETER_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(GPUMETER_TSAN)
    target_compile_options(${target} PRIVATE -fsanitize=thread -fno-omit-frame-pointer)
    target_link_options(${target} PRIVATE -fsanitize=thread)
  endif()
endfunction()

# gpumeter_library(NAME SOURCES ... DEPS ...): static library gpumeter_NAME, alias gpumeter::NAME.
function(gpumeter_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(gpumeter_${name} STATIC ${ARG_SOURCES})
  add_library(gpumeter::${name} ALIAS gpumeter_${name})
  target_include_directories(gpumeter_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(gpumeter_${name} PUBLIC ${ARG_DEPS})
  gpumeter_target_options(gpumeter_${name})
  gpumeter_unity(gpumeter_${name})
endfunction()

# The headers nearly every test file includes, precompiled once for all test executables, so that
# each unity batch of test files starts from GoogleTest, fmt and nlohmann/json already parsed.
option(GPUMETER_PCH "Precompile the common headers of the test executables" ON)
set(GPUMETER_TEST_PCH <gtest/gtest.h> <fmt/format.h> <nlohmann/json.hpp> <algorithm> <chrono>
    <cstdint> <expected> <filesystem> <map> <optional> <string> <string_view> <vector>)

# The precompiled header's owner: an empty test executable with the test executables' options,
# made once, so that a build of a few test targets (the TSan tree's) waits for it alone.
function(gpumeter_test_pch)
  if(TARGET gpumeter_test_pch)
    return()
  endif()
  add_executable(gpumeter_test_pch ${PROJECT_SOURCE_DIR}/cmake/test_pch.cpp)
  target_link_libraries(gpumeter_test_pch PRIVATE GTest::gtest GTest::gtest_main GTest::gmock
                                                  fmt::fmt nlohmann_json::nlohmann_json)
  target_include_directories(gpumeter_test_pch PRIVATE ${PROJECT_SOURCE_DIR}/src
                                                       ${PROJECT_SOURCE_DIR}/tests)
  gpumeter_target_options(gpumeter_test_pch)
  target_compile_options(gpumeter_test_pch PRIVATE -O0)
  target_precompile_headers(gpumeter_test_pch PRIVATE ${GPUMETER_TEST_PCH})
endfunction()

# CTest runs each test case of a GoogleTest executable as a process of its own, or, with this
# option, each executable once with all its cases. A sanitizer build's process costs about 0.45 s
# of CPU to start and to check for leaks at exit (a 100-200 MB binary, its shadow memory): for
# 1,338 cases, 596 s of CPU against 148 s run whole (docs/benchmarks.md). scripts/test.sh sets it
# in its sanitizer builds; a failing case still names itself in the executable's output.
option(GPUMETER_TEST_PER_EXECUTABLE "Run each GoogleTest executable as one CTest test" OFF)

# gpumeter_test(NAME SOURCES ... DEPS ...): a GoogleTest executable whose tests CTest discovers.
function(gpumeter_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock
                                        fmt::fmt nlohmann_json::nlohmann_json)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  gpumeter_target_options(${name})
  # Test files share unity batches too: each keeps its fixtures, helpers and constants in a
  # namespace named after the file (scripts/lint.sh checks it), so that two files of a batch
  # can both define a kT0 or a Fixture.
  gpumeter_unity(${name})
  # One precompiled header serves every test executable: they share their compile options,
  # the definitions that differ name nothing in these headers, and -Winvalid-pch with -Werror
  # would fail the build if GCC refused it. It saves one 8-second compile per test executable
  # in each build tree.
  if(GPUMETER_PCH)
    gpumeter_test_pch()
    target_precompile_headers(${name} REUSE_FROM gpumeter_test_pch)
  endif()
  # The test code itself is compiled without optimisation: two thirds of a test file's compile
  # time at -O2 went to optimising GoogleTest's and CLI11's inline code, which tests nothing.
  # The code under test keeps the build type's flags in its libraries.
  target_compile_options(${name} PRIVATE -O0)
  set(environment "GPUMETER_SOURCE_DIR=${PROJECT_SOURCE_DIR};GPUMETER_BINARY_DIR=${PROJECT_BINARY_DIR}")
  if(GPUMETER_TEST_PER_EXECUTABLE)
    add_test(NAME ${name}.all COMMAND ${name})
    set_tests_properties(${name}.all PROPERTIES LABELS cxx ENVIRONMENT "${environment}")
  else()
    gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60
                         PROPERTIES LABELS cxx ENVIRONMENT "${environment}")
  endif()
endfunction()
