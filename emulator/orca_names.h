/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: names for logs (orca_names.c).
 */
#ifndef ORCA_NAMES_H
#define ORCA_NAMES_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const char *orca_opcode_name(unsigned int opcode);
const char *orca_status_name(unsigned int status);
const char *orca_synd_name(unsigned int synd);
const char *orca_qps_name(unsigned int state);

#endif /* ORCA_NAMES_H */
