// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The device's trace events (hw_trace.h), defined once.
 */

#define CREATE_TRACE_POINTS
#include "hw_trace.h"
