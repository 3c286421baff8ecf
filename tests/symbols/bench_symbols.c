// SPDX-License-Identifier: GPL-2.0
/*
 * Driver of scripts/bench-symbols: symbolizes ROWS code and data addresses
 * of one ELF file (functions and objects of its symbol table at random
 * offsets, as a report's rows would be), with the caches cold, then warm,
 * then SAMPLES lookups drawn from the rows, and prints the times.
 * usage: bench_symbols FILE [ROWS [SAMPLES]]
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "names/symbols.h"

struct sym {
	uint64_t addr, size;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static struct map_desc maps[16];
static size_t nr_maps;

static const struct map_desc *map_of(uint64_t a)
{
	for (size_t i = 0; i < nr_maps; i++)
		if (a >= maps[i].start && a < maps[i].end)
			return &maps[i];
	return NULL;
}

static int load(const char *path, struct sym **code, size_t *nc, struct sym **data, size_t *nd,
		uint64_t *base)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t phnum, ac = 0, ad = 0;
	bool have_symtab = false;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum))
		return -1;
	*base = eh.e_type == ET_DYN ? 0x555555000000ULL : 0;
	for (size_t i = 0; i < phnum && nr_maps < 16; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		maps[nr_maps] = (struct map_desc){
			.start = *base + (ph.p_vaddr & ~0xfffULL),
			.end = *base + ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL),
			.pgoff = ph.p_offset & ~0xfffULL,
			.prot = (ph.p_flags & PF_R ? 1 : 0) | (ph.p_flags & PF_W ? 2 : 0) |
				(ph.p_flags & PF_X ? 4 : 0),
			.v2 = true,
			.name = path,
		};
		nr_maps++;
	}
	while ((scn = elf_nextscn(elf, scn)))  {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			have_symtab = true;
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != (have_symtab ? SHT_SYMTAB : SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			struct sym **arr;
			size_t *n, *a;

			if (!gelf_getsym(d, (int)i, &s) || !s.st_size || s.st_shndx == SHN_UNDEF)
				continue;
			if (GELF_ST_TYPE(s.st_info) == STT_FUNC) {
				arr = code, n = nc, a = &ac;
			} else if (GELF_ST_TYPE(s.st_info) == STT_OBJECT) {
				arr = data, n = nd, a = &ad;
			} else {
				continue;
			}
			if (*n == *a) {
				*a = *a ? *a * 2 : 1024;
				*arr = realloc(*arr, *a * sizeof(**arr));
			}
			(*arr)[(*n)++] = (struct sym){ *base + s.st_value, s.st_size };
		}
	}
	elf_end(elf);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sym *code = NULL, *data = NULL;
	size_t nc = 0, nd = 0, rows = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000;
	size_t samples = argc > 3 ? strtoul(argv[3], NULL, 0) : 2000000;
	struct symbols_opts o = { .no_debuginfod = true };
	uint64_t base, *ca, *da;
	size_t named_c = 0, named_l = 0, named_d = 0, named_m = 0;
	struct symbols_stats st;
	struct symbols *s;
	double t0, t_cold, t_warm, t_samp;

	if (argc < 2 || load(argv[1], &code, &nc, &data, &nd, &base) || !nc) {
		fprintf(stderr, "usage: bench_symbols ELF [ROWS [SAMPLES]] (an ELF with functions)\n");
		return 1;
	}
	ca = malloc(rows * sizeof(*ca));
	da = malloc(rows * sizeof(*da));
	for (size_t i = 0; i < rows; i++) {
		const struct sym *c = &code[rng() % nc];

		ca[i] = c->addr + rng() % c->size;
		if (nd) {
			const struct sym *d = &data[rng() % nd];

			da[i] = d->addr + rng() % d->size;
		} else {
			da[i] = 0;
		}
	}
	s = symbols__new(&o);
	t0 = now();
	for (size_t i = 0; i < rows; i++) {
		struct code_loc c;
		struct data_loc d;

		if (!symbols__code(s, map_of(ca[i]), 1, ca[i], 0, &c) && c.func)
			named_c++;
		if (c.file)
			named_l++;
		if (da[i] && !symbols__data(s, map_of(da[i]), NULL, 1, da[i], &d) && d.sym) {
			named_d++;
			if (d.member[0])
				named_m++;
		}
	}
	t_cold = now() - t0;
	t0 = now();
	for (size_t i = 0; i < rows; i++) {
		struct code_loc c;
		struct data_loc d;

		symbols__code(s, map_of(ca[i]), 1, ca[i], 0, &c);
		if (da[i])
			symbols__data(s, map_of(da[i]), NULL, 1, da[i], &d);
	}
	t_warm = now() - t0;
	t0 = now();
	for (size_t i = 0; i < samples; i++) {
		struct code_loc c;
		size_t r = rng() % rows;

		symbols__code(s, map_of(ca[r]), 1, ca[r], 0, &c);
	}
	t_samp = now() - t0;
	symbols__stats(s, &st);
	printf("%s: %zu functions, %zu objects in the symbol table\n", argv[1], nc, nd);
	printf("  rows: %zu code + %zu data addresses; named: %zu functions, %zu with file:line, "
	       "%zu data symbols, %zu with a member path\n", rows, nd ? rows : 0, named_c, named_l,
	       named_d, named_m);
	printf("  cold: %.3f s (%.1f us/row)   warm: %.3f s (%.2f us/row)   %zu sample lookups: "
	       "%.3f s\n", t_cold, t_cold * 1e6 / (double)rows, t_warm,
	       t_warm * 1e6 / (double)rows, samples, t_samp);
	printf("  objects opened %llu, code lookups %llu (cache hits %llu), data lookups %llu "
	       "(hits %llu)\n", (unsigned long long)st.objects_opened,
	       (unsigned long long)st.code_lookups, (unsigned long long)st.code_hits,
	       (unsigned long long)st.data_lookups, (unsigned long long)st.data_hits);
	symbols__delete(s);
	free(code);
	free(data);
	free(ca);
	free(da);
	return 0;
}
