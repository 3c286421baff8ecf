// SPDX-License-Identifier: GPL-2.0
/*
 * record --emulate's sample addresses (record/emuip.c): from the code
 * around a TSan hook's return address, the load or store it stands for,
 * on x86-64 instruction sequences GCC and Clang emit: the access right
 * after the call, after other instructions, after a reload of a local, not
 * past a branch; an atomic's call; a later sample of the same return
 * address without code, per thread.
 */
#include <string.h>
#include "test.h"
#include "perfdata/perf_data.h"
#include "record/emuip.h"

#define RET 0x401000ull

/* e's address, with code = 5 bytes of a direct call then after */
static uint64_t ip_of(struct emu_ip *x, uint32_t tid, uint8_t size, bool store, const uint8_t *after, size_t na)
{
	uint8_t code[PD_EMU_CODE_BEFORE + PD_EMU_CODE_AFTER] = { 0x90, 0x90, 0x90, 0xe8, 0x11, 0x22, 0x33, 0x44 };
	struct pd_emu_sample e = { .time = 1, .ret = RET, .tid = tid, .size = size, .store = store,
				   .code_before = 8, .code_after = (uint8_t)na };

	memcpy(code + 8, after, na);
	return emu_ip__of(x, &e, code);
}

static void test_x86(void)
{
	struct emu_ip *x = emu_ip__new();
	/* mov (%rbx),%rbp */
	static const uint8_t load_now[] = { 0x48, 0x8b, 0x2b, 0xc3 };
	/* mov $0,%ecx; mov 0x10(%rbx),%rax */
	static const uint8_t load_later[] = { 0xb9, 0, 0, 0, 0, 0x48, 0x8b, 0x43, 0x10 };
	/* mov -0x18(%rbp),%rax (a local's reload, -O0); mov (%rax),%eax */
	static const uint8_t after_reload[] = { 0x48, 0x8b, 0x45, 0xe8, 0x8b, 0x00 };
	/* add $1,%rbp; mov %rbp,(%rbx): the store after the value is made */
	static const uint8_t store_later[] = { 0x48, 0x83, 0xc5, 0x01, 0x48, 0x89, 0x2b };
	/* jmp +0; mov (%rbx),%rax: not past the branch */
	static const uint8_t branch[] = { 0xeb, 0x00, 0x48, 0x8b, 0x03 };
	/* movl (%rbx),%eax is 4 bytes, the hook says 8: not it */
	static const uint8_t wrong_size[] = { 0x8b, 0x03, 0xc3 };
	struct pd_emu_sample later = { .time = 1, .ret = RET, .tid = 7, .size = 8 };

#if defined(__x86_64__)
	CHECK_EQ_U64(ip_of(x, 1, 8, false, load_now, sizeof(load_now)), RET);
	CHECK_EQ_U64(ip_of(x, 2, 8, false, load_later, sizeof(load_later)), RET + 5);
	CHECK_EQ_U64(ip_of(x, 3, 4, false, after_reload, sizeof(after_reload)), RET + 4);
	CHECK_EQ_U64(ip_of(x, 4, 8, true, store_later, sizeof(store_later)), RET + 4);
	CHECK_EQ_U64(ip_of(x, 5, 8, false, branch, sizeof(branch)), RET);
	CHECK_EQ_U64(ip_of(x, 6, 8, false, wrong_size, sizeof(wrong_size)), RET);
	/* an atomic: the call (direct, 5 bytes before the return) */
	CHECK_EQ_U64(ip_of(x, 7, 0, false, load_later, sizeof(load_later)), RET - 5);
	/* the same thread's next sample of it carries no code */
	CHECK_EQ_U64(emu_ip__of(x, &later, NULL), RET - 5);
	later.tid = 2;
	CHECK_EQ_U64(emu_ip__of(x, &later, NULL), RET + 5);
	/* a thread that sent no code for it: the return address */
	later.tid = 99;
	CHECK_EQ_U64(emu_ip__of(x, &later, NULL), RET);
	/* a hook told the access's address itself */
	later.size = PD_EMU_AT_RET;
	later.tid = 2;
	CHECK_EQ_U64(emu_ip__of(x, &later, NULL), RET);
	/* many return addresses: the table grows and keeps them */
	for (uint32_t t = 100; t < 5000; t++)
		ip_of(x, t, 8, false, load_later, sizeof(load_later));
	later.size = 8;
	for (uint32_t t = 100; t < 5000; t += 97) {
		later.tid = t;
		CHECK_EQ_U64(emu_ip__of(x, &later, NULL), RET + 5);
	}
#endif
	emu_ip__delete(x);
}

int main(void)
{
#if !defined(__x86_64__)
	/* the instruction sequences here are x86-64's: said, not passed with
	 * nothing checked */
	printf("test_emuip: no instruction sequences for this architecture: skipped\n");
	return 77;
#endif
	test_x86();
	return test_done("test_emuip");
}
