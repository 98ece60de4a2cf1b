/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The "refnic" link kind. Its IFLA_INFO_DATA attributes are ABI, defined
 * once in uapi/linux/if_refnic.h (kbuild adds uapi/ to the include path;
 * DKMS ships uapi/ with kmod/).
 */

#ifndef _REFNIC_RTNL_H_
#define _REFNIC_RTNL_H_

#include <linux/if_refnic.h>

int refnic_rtnl_init(void);
void refnic_rtnl_exit(void);

#endif /* _REFNIC_RTNL_H_ */
