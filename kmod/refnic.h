/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors */

#ifndef _REFNIC_H_
#define _REFNIC_H_

#define REFNIC_DRV_NAME		"refnic"

struct dentry;

/* Root of the module's debugfs tree; NULL or an error pointer when debugfs
 * is unavailable, which debugfs callers accept as a parent.
 */
extern struct dentry *refnic_debugfs_root;

#endif /* _REFNIC_H_ */
