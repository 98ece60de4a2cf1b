// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The driver's trace events (refnic_trace.h), defined once.
 */

#define CREATE_TRACE_POINTS
#include "refnic_trace.h"
