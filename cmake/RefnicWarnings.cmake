# SPDX-License-Identifier: GPL-2.0-only
# refnic_target_warnings(<target>): the project's warning flags, applied per target so that
# third-party code (GoogleTest) is compiled with its own.
function(refnic_target_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wconversion -Wsign-conversion
    $<$<BOOL:${REFNIC_WERROR}>:-Werror>)
endfunction()
