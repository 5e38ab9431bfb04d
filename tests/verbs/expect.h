/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Expected device configuration for the verb tests.
 *
 * The device's capabilities come from the emulator's configuration, so the
 * tests compute what they must see with the emulator's own parser
 * (emulator/orca_cfg.c: defaults, "key = value" files, --set, and the
 * derivation rules of orca_cfg_finalize()) applied to the options the
 * emulator was started with.  Those options are, in order of preference:
 *
 *   1. --config FILE / --set KEY=VALUE on the test's command line;
 *   2. the emulator command line scripts/vm.sh recorded in
 *      $ORCA_JOB/emu-cmdline.txt (the job dir is visible in the guest);
 *   3. nothing: the emulator defaults.
 *
 * Only the configuration model is shared with the emulator; the values the
 * tests compare against it travel the whole way: QUERY_CAPS -> orca.ko ->
 * ib_uverbs -> libibverbs -> the orca provider.
 */
#ifndef ORCA_TESTS_EXPECT_H
#define ORCA_TESTS_EXPECT_H

#include "../../emulator/orca_cfg.c"

struct expect {
	struct orca_cfg cfg;
	char source[600];	/* where the configuration came from */
};

/* Apply one "--config FILE" or "--set K=V" word pair to @cfg. */
static inline int expect_apply(struct orca_cfg *cfg, const char *opt,
			       const char *val)
{
	char err[256];
	int ret;

	if (!strcmp(opt, "--config"))
		ret = orca_cfg_load(cfg, val, err, sizeof(err));
	else
		ret = orca_cfg_set_kv(cfg, val, err, sizeof(err));
	if (ret)
		fprintf(stderr, "expect: %s %s: %s\n", opt, val, err);
	return ret;
}

/*
 * Read the words of a printf-%q command line (scripts/vm.sh writes
 * emu-cmdline.txt that way): backslash escapes and '...' quoting.
 * Returns the number of words, -1 on a format it does not understand.
 */
static inline int expect_split_q(char *line, char **words, int max)
{
	char *r = line, *w;
	int n = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\n')
			r++;
		if (!*r)
			return n;
		if (n == max || *r == '$')
			return -1;
		words[n++] = w = r;
		while (*r && *r != ' ' && *r != '\t' && *r != '\n') {
			if (*r == '\\' && r[1]) {
				*w++ = r[1];
				r += 2;
			} else if (*r == '\'') {
				r++;
				while (*r && *r != '\'')
					*w++ = *r++;
				if (*r != '\'')
					return -1;
				r++;
			} else {
				*w++ = *r++;
			}
		}
		if (*r)
			r++;
		*w = '\0';
	}
}

/*
 * Consume --config/--set from argv (leaving the other arguments), build the
 * expected configuration.  Returns 0, or -1 after printing why.
 */
static inline int expect_init(struct expect *e, int *argc, char **argv)
{
	char err[256];
	const char *job = getenv("ORCA_JOB");
	bool explicit_opts = false;
	int i, j;

	orca_cfg_defaults(&e->cfg);
	snprintf(e->source, sizeof(e->source), "emulator defaults");
	for (i = 1, j = 1; i < *argc; i++) {
		if ((!strcmp(argv[i], "--config") || !strcmp(argv[i], "--set")) &&
		    i + 1 < *argc) {
			if (expect_apply(&e->cfg, argv[i], argv[i + 1]))
				return -1;
			explicit_opts = true;
			i++;
		} else {
			argv[j++] = argv[i];
		}
	}
	*argc = j;
	if (explicit_opts) {
		snprintf(e->source, sizeof(e->source), "command line");
	} else if (job && *job) {
		static char line[8192];
		char path[512], *words[128];
		FILE *f;
		int n;

		snprintf(path, sizeof(path), "%s/emu-cmdline.txt", job);
		f = fopen(path, "r");
		if (f) {
			size_t len = fread(line, 1, sizeof(line) - 1, f);

			fclose(f);
			line[len] = '\0';
			n = expect_split_q(line, words, 128);
			if (n < 0) {
				fprintf(stderr, "expect: cannot parse %s\n", path);
				return -1;
			}
			for (i = 1; i + 1 < n; i++) {
				if (!strcmp(words[i], "--config") ||
				    !strcmp(words[i], "--set")) {
					if (expect_apply(&e->cfg, words[i],
							 words[i + 1]))
						return -1;
					i++;
				}
			}
			snprintf(e->source, sizeof(e->source), "%s", path);
		}
	}
	if (orca_cfg_finalize(&e->cfg, err, sizeof(err))) {
		fprintf(stderr, "expect: configuration: %s\n", err);
		return -1;
	}
	return 0;
}

/* Data-in-order caps as the verb reports them (WHOLE_MSG implies 128 B) */
static inline int expect_dio(const struct orca_cfg *c, int idx)
{
	uint64_t v = idx == 0 ? c->dio_send :
		     idx == 1 ? c->dio_rdma_write : c->dio_rdma_read;

	if (v & ORCA_DIO_WHOLE_MSG)
		v |= ORCA_DIO_ALIGNED_128_BYTES;
	return (int)v;
}

#endif /* ORCA_TESTS_EXPECT_H */
