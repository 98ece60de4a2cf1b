# SPDX-License-Identifier: GPL-2.0-only
# Lint targets over lib/ and tools/ (the C++ userspace):
#   refnic-format        reformat in place with the project's .clang-format
#   refnic-format-check  fail on any formatting difference (also ctest -L lint)
#   refnic-tidy          clang-tidy over compile_commands.json (also ctest -L lint)
include_guard(GLOBAL)

find_program(REFNIC_CLANG_FORMAT NAMES clang-format-14 clang-format)
find_program(REFNIC_CLANG_TIDY NAMES clang-tidy-14 clang-tidy)
find_program(REFNIC_RUN_CLANG_TIDY NAMES run-clang-tidy-14 run-clang-tidy)

file(GLOB_RECURSE refnic_lint_sources CONFIGURE_DEPENDS
  "${PROJECT_SOURCE_DIR}/lib/*.cpp" "${PROJECT_SOURCE_DIR}/lib/*.hpp"
  "${PROJECT_SOURCE_DIR}/tools/*.cpp" "${PROJECT_SOURCE_DIR}/tools/*.hpp")

if(REFNIC_CLANG_FORMAT)
  add_custom_target(refnic-format
    COMMAND "${REFNIC_CLANG_FORMAT}" -i ${refnic_lint_sources}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" VERBATIM)
  add_custom_target(refnic-format-check
    COMMAND "${REFNIC_CLANG_FORMAT}" --dry-run --Werror ${refnic_lint_sources}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" VERBATIM)
  if(REFNIC_BUILD_TESTS)
    add_test(NAME lint.clang-format
      COMMAND "${REFNIC_CLANG_FORMAT}" --dry-run --Werror ${refnic_lint_sources}
      WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
    set_tests_properties(lint.clang-format PROPERTIES LABELS lint)
  endif()
endif()

if(REFNIC_CLANG_TIDY AND REFNIC_RUN_CLANG_TIDY)
  # Headers are checked through the sources that include them (HeaderFilterRegex).
  set(refnic_tidy_command "${REFNIC_RUN_CLANG_TIDY}" -quiet
    -clang-tidy-binary "${REFNIC_CLANG_TIDY}" -p "${PROJECT_BINARY_DIR}"
    "^${PROJECT_SOURCE_DIR}/(lib|tools)/.*\\.cpp$")
  add_custom_target(refnic-tidy COMMAND ${refnic_tidy_command} VERBATIM)
  if(REFNIC_BUILD_TESTS)
    add_test(NAME lint.clang-tidy COMMAND ${refnic_tidy_command})
    # A hang guard, not a speed check: make check runs a second kernel's VM
    # beside it, and on a loaded 2-core host it took over 900 s.
    set_tests_properties(lint.clang-tidy PROPERTIES LABELS lint TIMEOUT 2400)
  endif()
endif()
