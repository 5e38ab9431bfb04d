// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The doorbell hint's protocol (orca_hw.h, "Doorbell hint"), model-checked:
 * every interleaving of a poster's steps and the device's stop steps, on
 * x86-TSO (each side's stores wait in its store buffer until they drain,
 * a load sees its own side's newest buffered store first, a full fence
 * waits until the buffer has drained).
 *
 *   poster (providers/orca/qp.c orca_qp_kick()):
 *     store record = 1 (the new producer index); fence; load awake;
 *     kick if awake was 0, else skip the kick
 *   device (emulator/orca_dbhint.c orca_dev_idle()):
 *     store awake = 0; fence; load record (dp_run's read of it);
 *     stay awake if it saw the post, else sleep
 *
 * Lost wakeup: the poster skipped its kick and the device went to sleep
 * without having seen the post.  With both fences no interleaving ends
 * so; without either, one does (so the checker can find one).  Also the
 * device that saw the post must not have slept, and a kick must not be
 * lost when the device is already asleep at the start.
 *
 * The programs below are the real code's: dbhint_model_ops() words them
 * as tests/models/ties.c words what the provider's post and the device's
 * stop really do, traced, and that test holds the two equal.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

#include "tso_model.h"

/* An end state: poster skipped its kick, device slept unaware. */
static bool lost_wakeup(const struct world *w)
{
	bool skipped = w->s[0].loaded != 0;	/* awake was seen */
	bool slept = w->s[1].loaded == 0;	/* record not seen */

	return skipped && slept;
}

/*
 * Every run from awake = @awake, record = 0; returns how many end in a
 * state with property @is_bad.
 */
static unsigned long check(const struct step *poster,
			   const struct step *device, int awake,
			   bool (*is_bad)(const struct world *w))
{
	return tso_check(poster, device, awake, 0, is_bad);
}

static const struct step poster[] = {
	{ ST, 1, 1 }, { FENCE, 0, 0 }, { LD, 0, 0 }, { END, 0, 0 },
};
static const struct step device[] = {
	{ ST, 0, 0 }, { FENCE, 0, 0 }, { LD, 1, 0 }, { END, 0, 0 },
};
static const struct step poster_no_fence[] = {
	{ ST, 1, 1 }, { LD, 0, 0 }, { END, 0, 0 },
};
static const struct step device_no_fence[] = {
	{ ST, 0, 0 }, { LD, 1, 0 }, { END, 0, 0 },
};

/*
 * @prog's operations, "store rec; fence; load awake", into @buf (0:
 * awake, 1: the record), the kick of a poster that loaded 0 not included.
 */
static void ops(const struct step *prog, char *buf, size_t len)
{
	static const char *const names[] = { "awake", "rec" };
	size_t n = 0;

	buf[0] = 0;
	for (; prog->op != END && n < len; prog++)
		n += snprintf(buf + n, len - n, "%s%s%s", n ? "; " : "",
			      prog->op == ST ? "store " :
			      prog->op == LD ? "load " : "fence",
			      prog->op == FENCE ? "" : names[prog->var]);
}

/* The poster's (@device false) or the device's operations, in order. */
void dbhint_model_ops(bool device_side, char *buf, size_t len);
void dbhint_model_ops(bool device_side, char *buf, size_t len)
{
	ops(device_side ? device : poster, buf, len);
}

static void fenced_protocol_loses_nothing(void)
{
	CHECK_EQ(check(poster, device, 1, lost_wakeup), 0);
	CHECK(explored > 10);		/* it did explore */
	printf("# %lu interleavings, none loses the post\n", explored);
}

static void each_fence_is_needed(void)
{
	/* store buffering: both loads may read the old values */
	CHECK(check(poster_no_fence, device, 1, lost_wakeup) > 0);
	CHECK(check(poster, device_no_fence, 1, lost_wakeup) > 0);
	CHECK(check(poster_no_fence, device_no_fence, 1, lost_wakeup) > 0);
}

static bool no_kick(const struct world *w)
{
	return w->s[0].loaded != 0;
}

static bool kicked(const struct world *w)
{
	return w->s[0].loaded == 0;
}

/*
 * A device asleep from the start (awake 0) is always kicked; one that is
 * awake and stays so (it does not stop) never is: the hint saves kicks.
 */
static void kick_only_when_needed(void)
{
	static const struct step running[] = { { END, 0, 0 } };

	CHECK_EQ(check(poster, running, 0, no_kick), 0);
	CHECK(explored > 0);
	CHECK_EQ(check(poster, running, 1, kicked), 0);
	CHECK(explored > 0);
}

int main(void)
{
	RUN(fenced_protocol_loses_nothing);
	RUN(each_fence_is_needed);
	RUN(kick_only_when_needed);
	return tap_done();
}
