// SPDX-License-Identifier: MIT
// The owner of the test executables' precompiled header (cmake/GpumeterHelpers.cmake,
// gpumeter_test_pch): no tests of its own; GoogleTest's main runs none.
