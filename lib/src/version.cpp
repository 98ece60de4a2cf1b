// SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause
// The version of the library loaded at run time (refnic/version.h).
#include <refnic/version.h>

static_assert(REFNIC_VERSION_MAJOR < 256 && REFNIC_VERSION_MINOR < 256 &&
                  REFNIC_VERSION_PATCH < 256,
              "REFNIC_VERSION_NUMBER holds 8 bits a component");

extern "C" unsigned int refnic_version() { return REFNIC_VERSION; }

extern "C" const char* refnic_version_string() { return REFNIC_VERSION_STRING; }
