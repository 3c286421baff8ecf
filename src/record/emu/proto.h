/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The coherence protocol of record --emulate, as pure functions over one
 * line's state: no threads, no shared memory, no runtime. emu.c's step()
 * applies them to the model's lines (by compare-and-swap); the unit tests
 * (tests/unit/test_emuproto.c) run them on scripted states.
 *
 * A line's state: the cores holding a copy (bits 0..PD_EMU_CORES-1) and the
 * core holding it modified (owner, its index + 1, 0 none; bits 56..62).
 * The classes are perf_data.h's (PD_EMU_CLASSES: one table of class,
 * latency, data_src and label).
 */
#ifndef C2CSCAN_EMU_PROTO_H
#define C2CSCAN_EMU_PROTO_H

#include <stdbool.h>
#include <stdint.h>
#include "perfdata/perf_data.h"

#define PROTO_SHARERS(st) ((st) & ((1ull << PD_EMU_CORES) - 1))
#define PROTO_OWNER(st) ((uint32_t)((st) >> PD_EMU_CORES))      /* core + 1, 0 none */
#define PROTO_STATE(owner, sharers) ((uint64_t)(owner) << PD_EMU_CORES | (sharers))

/* One access of core idx to a line in state st: its class, and the state
 * it leaves in *to. A store takes the line modified (a HITM when another
 * core had it modified, a miss when others had copies); a load of another
 * core's modified line is a HITM and leaves both with a copy; a load of a
 * copy only others had is an LLC hit. */
static inline enum pd_emu_class proto_access(uint64_t st, uint32_t idx, bool store, uint64_t *to)
{
	uint64_t bit = 1ull << idx, sharers = PROTO_SHARERS(st);
	uint32_t me1 = idx + 1, owner = PROTO_OWNER(st);

	if (store) {
		*to = PROTO_STATE(me1, bit);
		return owner && owner != me1 ? PD_EMU_ST_HITM : sharers & ~bit ? PD_EMU_ST_MISS : PD_EMU_ST_L1;
	}
	if (owner && owner != me1) {
		*to = PROTO_STATE(0, sharers | 1ull << (owner - 1) | bit);
		return PD_EMU_HITM;
	}
	*to = PROTO_STATE(owner, sharers | bit);
	return !(sharers & bit) && (sharers & ~bit) ? PD_EMU_LLC : PD_EMU_L1;
}

/* The cores holding a line in state st: its sharers and its owner. */
static inline uint64_t proto_holders(uint64_t st)
{
	uint32_t owner = PROTO_OWNER(st);

	return PROTO_SHARERS(st) | (owner ? 1ull << (owner - 1) : 0);
}

/* The cores that lose what they held of a line in state st when core idx
 * accesses it: a store takes it from every other holder, a load takes the
 * right to write from another core that had it modified. */
static inline uint64_t proto_lost(uint64_t st, uint32_t idx, bool store)
{
	uint32_t owner = PROTO_OWNER(st);

	return (store ? proto_holders(st) : owner ? 1ull << (owner - 1) : 0) & ~(1ull << idx);
}

/* The default model (lockstep windows): another core wrote the line in this
 * window or the one before, so it took the line from this core in between
 * whatever the state says: a hit or a shared read becomes a transfer. */
static inline enum pd_emu_class proto_other_wrote(enum pd_emu_class cls)
{
	switch (cls) {
	case PD_EMU_L1:
	case PD_EMU_LLC:
		return PD_EMU_HITM;
	case PD_EMU_ST_L1:
	case PD_EMU_ST_MISS:
		return PD_EMU_ST_HITM;
	default:
		return cls;
	}
}

/* The default model's record of who wrote a line in a window: per window
 * w (kept at w % 2) a word of its number's low 8 bits (bits 56-63) and the
 * cores that wrote (bits 0..PD_EMU_CORES-1). */
#define PROTO_WROTE_CORES ((1ull << PD_EMU_CORES) - 1)
#define PROTO_WROTE_TAG(w) ((uint64_t)((w) & 0xff) << 56)

/* The word m (window w's slot) after core idx wrote in window w: an older
 * window's word is replaced, a newer one's (a thread catching up) added to. */
static inline uint64_t proto_wrote(uint64_t m, uint32_t w, uint32_t idx)
{
	int8_t age = (int8_t)((uint8_t)w - (uint8_t)(m >> 56));
	uint64_t bit = 1ull << idx;

	return age > 0 || !m ? PROTO_WROTE_TAG(w) | bit : m | bit;
}

/* Whether m, the slot of window w, says another core than idx wrote in w. */
static inline bool proto_other_wrote_in(uint64_t m, uint32_t w, uint32_t idx)
{
	return (m & ~PROTO_WROTE_CORES) == PROTO_WROTE_TAG(w) && (m & PROTO_WROTE_CORES & ~(1ull << idx));
}

#endif
