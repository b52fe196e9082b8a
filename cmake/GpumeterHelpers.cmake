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
endfunction()

# gpumeter_test(NAME SOURCES ... DEPS ...): a GoogleTest executable whose tests CTest discovers.
function(gpumeter_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  gpumeter_target_options(${name})
  gtest_discover_tests(${name} TEST_PREFIX "${name}." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS cxx
    ENVIRONMENT "GPUMETER_SOURCE_DIR=${PROJECT_SOURCE_DIR};GPUMETER_BINARY_DIR=${PROJECT_BINARY_DIR}")
endfunction()
