// SPDX-License-Identifier: GPL-2.0
/* system_dfl_wq, the unbound default workqueue (6.17; system_unbound_wq before) */
#include <linux/workqueue.h>

bool orca_probe(struct work_struct *work);
bool orca_probe(struct work_struct *work)
{
	return queue_work(system_dfl_wq, work);
}
