// SPDX-License-Identifier: GPL-2.0
/*
 * The coherence protocol (src/record/emu/proto.h) as the pure functions it
 * is: scripted states, no threads, no runtime. test_emu runs the same
 * protocol through the runtime's hooks; this says what each transition is.
 */
#include "record/emu/proto.h"
#include "test.h"

/* The class of idx's access to *st, the state moved on. */
static enum pd_emu_class go(uint64_t *st, uint32_t idx, bool store)
{
	uint64_t to;
	enum pd_emu_class c = proto_access(*st, idx, store, &to);

	*st = to;
	return c;
}

int main(void)
{
	uint64_t st = 0, m;

	/* the first store: an L1 store, the line modified in core 0 */
	CHECK(go(&st, 0, true) == PD_EMU_ST_L1);
	CHECK(PROTO_OWNER(st) == 1 && PROTO_SHARERS(st) == 1);
	CHECK(go(&st, 0, false) == PD_EMU_L1);          /* its own line */
	/* a load of another core's modified line: a HITM, both keep a copy */
	CHECK(go(&st, 1, false) == PD_EMU_HITM);
	CHECK(PROTO_OWNER(st) == 0 && PROTO_SHARERS(st) == 3);
	CHECK(go(&st, 1, false) == PD_EMU_L1);
	/* a load of a copy only others hold: the LLC */
	CHECK(go(&st, 2, false) == PD_EMU_LLC);
	CHECK(PROTO_SHARERS(st) == 7);
	/* a store to a line others hold copies of: a store miss, the copies go */
	CHECK(go(&st, 2, true) == PD_EMU_ST_MISS);
	CHECK(PROTO_OWNER(st) == 3 && PROTO_SHARERS(st) == 4);
	/* a store taking another core's modified line: a store HITM */
	CHECK(go(&st, 0, true) == PD_EMU_ST_HITM);
	CHECK(PROTO_OWNER(st) == 1 && PROTO_SHARERS(st) == 1);
	/* nothing to write when the core left the line as it is */
	{
		uint64_t to;

		CHECK(proto_access(st, 0, true, &to) == PD_EMU_ST_L1 && to == st);
		CHECK(proto_access(st, 0, false, &to) == PD_EMU_L1 && to == st);
	}
	/* ping-pong of two writers: every store after the first a HITM */
	st = 0;
	for (int i = 0; i < 100; i++)
		CHECK(go(&st, (uint32_t)(i & 1), true) == (i ? PD_EMU_ST_HITM : PD_EMU_ST_L1));
	/* the highest core index */
	st = 0;
	CHECK(go(&st, PD_EMU_CORES - 1, true) == PD_EMU_ST_L1);
	CHECK(PROTO_OWNER(st) == PD_EMU_CORES && go(&st, 0, false) == PD_EMU_HITM);

	/* the window rule: another core's write in the window makes a hit or
	 * a shared read a transfer; a transfer stays one */
	CHECK(proto_other_wrote(PD_EMU_L1) == PD_EMU_HITM);
	CHECK(proto_other_wrote(PD_EMU_LLC) == PD_EMU_HITM);
	CHECK(proto_other_wrote(PD_EMU_ST_L1) == PD_EMU_ST_HITM);
	CHECK(proto_other_wrote(PD_EMU_ST_MISS) == PD_EMU_ST_HITM);
	CHECK(proto_other_wrote(PD_EMU_HITM) == PD_EMU_HITM);
	CHECK(proto_other_wrote(PD_EMU_ST_HITM) == PD_EMU_ST_HITM);

	/* who wrote in a window: tagged by the window, older words replaced */
	m = proto_wrote(0, 5, 0);
	CHECK(m == (PROTO_WROTE_TAG(5) | 1));
	CHECK(!proto_other_wrote_in(m, 5, 0));          /* only itself */
	CHECK(proto_other_wrote_in(m, 5, 1));
	CHECK(!proto_other_wrote_in(m, 7, 1));          /* another window's word */
	m = proto_wrote(m, 5, 3);
	CHECK(m == (PROTO_WROTE_TAG(5) | 9));
	CHECK(proto_other_wrote_in(m, 5, 0) && proto_other_wrote_in(m, 5, 3));
	m = proto_wrote(m, 7, 2);                       /* window 7 reuses the slot */
	CHECK(m == (PROTO_WROTE_TAG(7) | 4));
	CHECK(proto_wrote(m, 5, 1) == (m | 2));         /* a thread behind adds to the newer word */
	/* the tag wraps at 256 windows: window 256 is newer than 255 */
	m = proto_wrote(proto_wrote(0, 255, 0), 256, 1);
	CHECK(m == (PROTO_WROTE_TAG(256) | 2));

	/* who loses what it holds of a line (its gate lets go of it): a store
	 * takes the line from every other holder, a load only the right to
	 * write from another owner; its own holding is never lost */
	st = PROTO_STATE(2, 0x7);                       /* core 1 modified, 0 and 2 with copies */
	CHECK(proto_holders(st) == 0x7);
	CHECK(proto_lost(st, 0, true) == 0x6);
	CHECK(proto_lost(st, 3, true) == 0x7);
	CHECK(proto_lost(st, 0, false) == 0x2);
	CHECK(proto_lost(st, 1, false) == 0 && proto_lost(st, 1, true) == 0x5);
	st = PROTO_STATE(0, 0x5);                       /* copies only: a load takes nothing */
	CHECK(proto_lost(st, 1, false) == 0 && proto_lost(st, 1, true) == 0x5);
	CHECK(proto_holders(PROTO_STATE(PD_EMU_CORES, 0)) == 1ull << (PD_EMU_CORES - 1));
	CHECK(proto_holders(0) == 0 && proto_lost(0, 0, true) == 0);
	return test_done("test_emuproto");
}
