// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction at a sampled code address, decoded with capstone: what
 * its memory operand is (base, index, scale, displacement), how many bytes
 * it touches, and whether it loads, stores or both. The bytes come from the
 * object's ELF file (the executable section holding the address), the
 * answers are cached per (object, address) like the names, and only the
 * rows a renderer shows are decoded. x86-64 (AT&T syntax, as perf prints)
 * and aarch64.
 */
#include <capstone.h>
#include <errno.h>
#include <gelf.h>
#include <string.h>
#include "names/symbols_int.h"

size_t code_span(struct obj *o, uint64_t vaddr, const uint8_t **p)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(o->mod, &bias);
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    vaddr < sh.sh_addr || vaddr - sh.sh_addr >= sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		off = (size_t)(vaddr - sh.sh_addr);
		if (!d || !d->d_buf || off >= d->d_size)
			return 0;
		*p = (const uint8_t *)d->d_buf + off;
		return d->d_size - off;
	}
	return 0;
}

int obj_machine(struct obj *o)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(o->mod, &bias);
	GElf_Ehdr eh;

	return elf && gelf_getehdr(elf, &eh) ? eh.e_machine : 0;
}

bool cs_handle(struct symbols *s, int machine, csh **hp)
{
	int which = machine == EM_X86_64 ? 0 : machine == EM_AARCH64 ? 1 : -1;

	if (which < 0)
		return false;
	if (!s->cs_open[which]) {
		s->cs_open[which] = 1;
		if (cs_open(which ? CS_ARCH_ARM64 : CS_ARCH_X86, which ? CS_MODE_ARM : CS_MODE_64,
			    &s->cs[which]) == CS_ERR_OK) {
			cs_option(s->cs[which], CS_OPT_DETAIL, CS_OPT_ON);
			if (!which)
				cs_option(s->cs[which], CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
			s->cs_open[which] = 2;
		}
	}
	*hp = &s->cs[which];
	return s->cs_open[which] == 2;
}

static void reg_name(csh h, unsigned int reg, char *buf, size_t size)
{
	const char *n = reg ? cs_reg_name(h, reg) : NULL;

	snprintf(buf, size, "%s", n ? n : "");
}

uint8_t a64_access_size(const cs_insn *in)
{
	const cs_arm64 *a = &in->detail->arm64;
	const char *m = in->mnemonic;
	size_t len = strlen(m);

	if (len && (m[len - 1] == 'b'))
		return 1;
	if (len && (m[len - 1] == 'h'))
		return 2;
	if (!strncmp(m, "ldrsw", 5))
		return 4;
	for (uint8_t i = 0; i < a->op_count; i++) {
		if (a->operands[i].type != ARM64_OP_REG)
			continue;
		if (a->operands[i].reg >= ARM64_REG_W0 && a->operands[i].reg <= ARM64_REG_W30)
			return (!strncmp(m, "ldp", 3) || !strncmp(m, "stp", 3)) ? 8 : 4;
		return (!strncmp(m, "ldp", 3) || !strncmp(m, "stp", 3)) ? 16 : 8;
	}
	return 0;
}

int symbols__insn_bytes(struct symbols *s, int machine, const uint8_t *buf, size_t n, uint64_t vaddr,
			struct insn_access *out)
{
	cs_insn *in = NULL;
	csh *h;

	memset(out, 0, sizeof(*out));
	if (!n || !cs_handle(s, machine, &h))
		return -ENOENT;
	if (cs_disasm(*h, buf, n, vaddr, 1, &in) != 1)
		return -EINVAL;
	snprintf(out->text, sizeof(out->text), "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "", in->op_str);
	out->valid = true;
	if (h == &s->cs[0] && in->detail) {
		const cs_x86 *x = &in->detail->x86;

		for (uint8_t i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			if (op->type != X86_OP_MEM)
				continue;
			/* lea computes an address: no access */
			if (in->id == X86_INS_LEA)
				break;
			out->mem = true;
			out->size = op->size;
			out->load = op->access & CS_AC_READ;
			out->store = op->access & CS_AC_WRITE;
			reg_name(*h, op->mem.base, out->base, sizeof(out->base));
			reg_name(*h, op->mem.index, out->index, sizeof(out->index));
			out->scale = op->mem.scale;
			out->disp = op->mem.disp;
			break;
		}
	} else if (in->detail) {
		const cs_arm64 *a = &in->detail->arm64;

		for (uint8_t i = 0; i < a->op_count; i++) {
			const cs_arm64_op *op = &a->operands[i];

			if (op->type != ARM64_OP_MEM)
				continue;
			out->mem = true;
			out->size = a64_access_size(in);
			out->load = in->mnemonic[0] == 'l';
			out->store = in->mnemonic[0] == 's';
			reg_name(*h, op->mem.base, out->base, sizeof(out->base));
			reg_name(*h, op->mem.index, out->index, sizeof(out->index));
			out->scale = 1;
			out->disp = op->mem.disp;
			break;
		}
	}
	cs_free(in, 1);
	return 0;
}

static int insn_decode(struct symbols *s, struct obj *o, uint64_t vaddr, struct insn_access *out)
{
	const uint8_t *p = NULL;
	size_t n = code_span(o, vaddr, &p);

	memset(out, 0, sizeof(*out));
	if (!n)
		return -ENOENT;
	return symbols__insn_bytes(s, obj_machine(o), p, n < 16 ? n : 16, vaddr, out);
}

int symbols__insn(struct symbols *s, const struct map_desc *map, uint64_t addr, struct insn_access *out)
{
	struct obj *o;
	uint64_t vaddr;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!map || map_is_anon(map) || map->name[0] == '[')
		return -ENOENT;
	rc = obj__at(s, map, addr, false, &o, &vaddr);
	if (rc)
		return rc;
	if (acache__get(&o->insns, vaddr, out, &rc))
		return rc;
	rc = insn_decode(s, o, vaddr, out);
	acache__put(&o->insns, vaddr, rc, out);
	return rc;
}
