// SPDX-License-Identifier: GPL-2.0
/* vm_flags_set() and vm_flags_clear(): vma->vm_flags became read-only (6.3) */
#include <linux/mm.h>

void orca_probe(struct vm_area_struct *vma);
void orca_probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTCOPY);
	vm_flags_clear(vma, VM_MAYEXEC);
}
