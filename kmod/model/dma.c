// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * How the model reaches host memory: only through DMA addresses the driver
 * gave it (ring bases, buffer addresses), as a bus master would.
 *
 * This works for dma-direct only: the DMA address the driver got from the
 * DMA API is then the physical address (dma_to_phys() undoes any fixed
 * offset and the memory-encryption bit), so the model finds the page and
 * maps it with kmap_local_page(), one page at a time since buffers and rings
 * may cross page boundaries. With swiotlb forced (SEV/TDX guests,
 * swiotlb=force) the driver's address would be a bounce slot that is only
 * synced at unmap, and behind an IOMMU it is an IOVA that means nothing to
 * the CPU; refnic_dma_check() refuses such devices when a card is plugged.
 *
 * An address that does not translate to RAM is refused (-EFAULT) and the
 * caller halts the queue, as a real device would report a master abort:
 * a bad descriptor must never crash the host.
 */

#include <linux/dma-direct.h>
#include <linux/dma-map-ops.h>
#include <linux/highmem.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/swiotlb.h>

#include "model.h"

int refnic_dma_check(struct device *dev)
{
	struct iommu_domain *domain;

	if (is_swiotlb_force_bounce(dev)) {
		dev_err(dev, "swiotlb bouncing is forced: the refnic model works with dma-direct only\n");
		return -EOPNOTSUPP;
	}
	domain = iommu_get_domain_for_dev(dev);
	if (domain && domain->type != IOMMU_DOMAIN_IDENTITY) {
		dev_err(dev, "behind a translating IOMMU: the refnic model works with dma-direct only\n");
		return -EOPNOTSUPP;
	}
	if (get_dma_ops(dev)) {
		dev_err(dev, "has DMA ops: the refnic model works with dma-direct only\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Map the page holding @addr; *@chunk is set to the bytes of [addr, addr +
 * len) within it. NULL when @addr is not RAM.
 */
static void *refnic_dma_map(struct refnic_model_port *port, u64 addr,
			    u32 len, u32 *chunk)
{
	phys_addr_t phys = dma_to_phys(port->dev, addr);
	unsigned long pfn = PHYS_PFN(phys);
	u32 off = offset_in_page(phys);

	if (!pfn_valid(pfn))
		return NULL;
	*chunk = min_t(u32, len, PAGE_SIZE - off);
	return kmap_local_page(pfn_to_page(pfn)) + off;
}

static bool refnic_dma_range_ok(u64 addr, u32 len)
{
	return addr && addr + len >= addr;
}

/* What the transfer costs on the card's link, when its bus model is on. */
static void refnic_dma_charge(struct refnic_model_port *port, u64 addr,
			      u32 len, enum refnic_pcie_way way)
{
	if (refnic_pcie_on(port->card))
		refnic_pcie_dma(port, addr, len, way);
}

int refnic_dma_read(struct refnic_model_port *port, u64 addr, void *buf,
		    u32 len)
{
	u32 chunk;
	void *p;

	if (!refnic_dma_range_ok(addr, len))
		return -EFAULT;
	refnic_dma_charge(port, addr, len, REFNIC_PCIE_TO_CARD);
	while (len) {
		p = refnic_dma_map(port, addr, len, &chunk);
		if (!p)
			return -EFAULT;
		memcpy(buf, p, chunk);
		kunmap_local(p);
		addr += chunk;
		buf += chunk;
		len -= chunk;
	}
	return 0;
}

int refnic_dma_write(struct refnic_model_port *port, u64 addr,
		     const void *buf, u32 len)
{
	u32 chunk;
	void *p;

	if (!refnic_dma_range_ok(addr, len))
		return -EFAULT;
	refnic_dma_charge(port, addr, len, REFNIC_PCIE_TO_HOST);
	while (len) {
		p = refnic_dma_map(port, addr, len, &chunk);
		if (!p)
			return -EFAULT;
		memcpy(p, buf, chunk);
		kunmap_local(p);
		addr += chunk;
		buf += chunk;
		len -= chunk;
	}
	return 0;
}

int refnic_dma_write_zero(struct refnic_model_port *port, u64 addr, u32 len)
{
	u32 chunk;
	void *p;

	if (!refnic_dma_range_ok(addr, len))
		return -EFAULT;
	refnic_dma_charge(port, addr, len, REFNIC_PCIE_TO_HOST);
	while (len) {
		p = refnic_dma_map(port, addr, len, &chunk);
		if (!p)
			return -EFAULT;
		memset(p, 0, chunk);
		kunmap_local(p);
		addr += chunk;
		len -= chunk;
	}
	return 0;
}

/* Status words the driver polls are written with one store, so that it
 * never sees half of one. Their fields are naturally aligned, so they never
 * cross a page; a misaligned address is the driver's bug and gets a plain
 * copy.
 */
int refnic_dma_write_le16(struct refnic_model_port *port, u64 addr, u16 val)
{
	__le16 le = cpu_to_le16(val);
	u32 chunk;
	void *p;

	if (!IS_ALIGNED(addr, sizeof(le)))
		return refnic_dma_write(port, addr, &le, sizeof(le));
	if (!refnic_dma_range_ok(addr, sizeof(le)))
		return -EFAULT;
	refnic_dma_charge(port, addr, sizeof(le), REFNIC_PCIE_TO_HOST);
	p = refnic_dma_map(port, addr, sizeof(le), &chunk);
	if (!p)
		return -EFAULT;
	WRITE_ONCE(*(__le16 *)p, le);
	kunmap_local(p);
	return 0;
}

int refnic_dma_write_le32(struct refnic_model_port *port, u64 addr, u32 val)
{
	__le32 le = cpu_to_le32(val);
	u32 chunk;
	void *p;

	if (!IS_ALIGNED(addr, sizeof(le)))
		return refnic_dma_write(port, addr, &le, sizeof(le));
	if (!refnic_dma_range_ok(addr, sizeof(le)))
		return -EFAULT;
	refnic_dma_charge(port, addr, sizeof(le), REFNIC_PCIE_TO_HOST);
	p = refnic_dma_map(port, addr, sizeof(le), &chunk);
	if (!p)
		return -EFAULT;
	WRITE_ONCE(*(__le32 *)p, le);
	kunmap_local(p);
	return 0;
}

/* Would a read of [addr, addr + len) find RAM all along? Asked of a frame
 * that is cut through before its first segment leaves, so that a bad
 * buffer halts the queue before anything is sent, as it does when the
 * frame is read whole first.
 */
bool refnic_dma_readable(struct refnic_model_port *port, u64 addr, u32 len)
{
	u64 end = addr + len;
	phys_addr_t phys;

	if (!refnic_dma_range_ok(addr, len))
		return false;
	while (addr < end) {
		phys = dma_to_phys(port->dev, addr);
		if (!pfn_valid(PHYS_PFN(phys)))
			return false;
		addr += PAGE_SIZE - offset_in_page(phys);
	}
	return true;
}

/* The buffer of @sg holding frame byte *@off: its index, *@off made
 * relative to it; sg->n when the frame is shorter.
 */
static u32 refnic_sg_find(const struct refnic_tx_sg *sg, u32 *off)
{
	u32 i;

	for (i = 0; i < sg->n && *off >= sg->len[i]; i++)
		*off -= sg->len[i];
	return i;
}

/* Read bytes [off, off + len) of the frame @sg describes into @buf; what
 * cannot be read is left zero.
 */
int refnic_sg_read(const struct refnic_tx_sg *sg, u32 off, void *buf, u32 len)
{
	u32 i, n;
	int err = 0;

	for (i = refnic_sg_find(sg, &off); i < sg->n && len; i++, off = 0) {
		n = min(len, sg->len[i] - off);
		err = refnic_dma_read(sg->port, sg->addr[i] + off, buf, n);
		if (err)
			break;
		buf += n;
		len -= n;
	}
	if (!len)
		return 0;
	memset(buf, 0, len);
	return err ?: -EFAULT;
}
