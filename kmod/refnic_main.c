// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * refnic: a reference multi-queue NIC. Module entry points.
 *
 * The module holds two parts behind a hard boundary: the device model
 * (model/), which behaves like the hardware and is reached only through its
 * register file and DMA memory, and the driver, written as for a real NIC.
 * Module init brings up the shared infrastructure first and the interfaces
 * that create devices last, so that no device can appear before everything
 * it depends on exists; exit runs the same steps in reverse.
 */

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/module.h>

#include "refnic.h"
#include "refnic_bus.h"
#include "refnic_bypass.h"
#include "refnic_genl.h"
#include "refnic_rtnl.h"

struct dentry *refnic_debugfs_root;

bool refnic_recycle_batch = true;
module_param_named(recycle_batch, refnic_recycle_batch, bool, 0644);
MODULE_PARM_DESC(recycle_batch,
		 "Batch the driver's own buffer paths (default Y): RX refill with one doorbell per batch, 16 header slots per page, bulk release outside NAPI. N does each per buffer, for comparison; applies to queues built afterwards");

static int __init refnic_init(void)
{
	int err;

	/* debugfs is diagnostics only: the module works without it, so a
	 * failure here is not an error (debugfs accepts error pointers as
	 * parents and ignores them).
	 */
	refnic_debugfs_root = debugfs_create_dir(REFNIC_DRV_NAME, NULL);

	err = refnic_bus_init();
	if (err)
		goto err_debugfs;

	/* Before any port exists: it refuses to bring up a failed one. */
	err = refnic_netdev_init();
	if (err)
		goto err_bus;

	/* From here on `ip link add ... type refnic` works. */
	err = refnic_rtnl_init();
	if (err)
		goto err_netdev;

	/* Last: the refnic netlink family, which creates pairs through the
	 * link kind and announces them.
	 */
	err = refnic_genl_init();
	if (err)
		goto err_rtnl;

	/* /dev/refnic: kernel-bypass queues of the ports above. */
	err = refnic_bypass_init();
	if (err)
		goto err_genl;

	return 0;

err_genl:
	refnic_genl_exit();
err_rtnl:
	refnic_rtnl_exit();
err_netdev:
	refnic_netdev_exit();
err_bus:
	refnic_bus_exit();
err_debugfs:
	debugfs_remove(refnic_debugfs_root);
	refnic_debugfs_root = NULL;
	return err;
}

static void __exit refnic_exit(void)
{
	/* An open /dev/refnic holds the module: none is left. */
	refnic_bypass_exit();
	/* No family request runs or starts after this... */
	refnic_genl_exit();
	/* ...so none races with deleting every device and unplugging every
	 * card, before the bus goes.
	 */
	refnic_rtnl_exit();
	refnic_netdev_exit();
	refnic_bus_exit();
	debugfs_remove(refnic_debugfs_root);
	refnic_debugfs_root = NULL;
}

module_init(refnic_init);
module_exit(refnic_exit);

MODULE_DESCRIPTION("refnic: reference multi-queue NIC (device model and driver)");
MODULE_AUTHOR("The refnic authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(REFNIC_VERSION);
