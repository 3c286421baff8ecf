// SPDX-License-Identifier: GPL-2.0
/*
 * libc2cscan-libtsan.so.N: what record --emulate preloads, after the
 * runtime (libc2cscan-emu.so), in place of ThreadSanitizer's runtime
 * libtsan.so.N. Its SONAME is libtsan.so.N, so the dynamic linker takes it
 * for the library a GCC -fsanitize=thread build names in DT_NEEDED and
 * never loads libtsan: every hook the program calls is the runtime's, and
 * the C library's functions (pthread_create, malloc, signals, fork) are
 * the C library's, as in the build without -fsanitize=thread. It defines
 * nothing the program uses: record preloads it only when the dynamic
 * linker, asked first (ld.so --list with every symbol bound), finds all the
 * program's symbols without libtsan (emurec.c); the runtime takes it out
 * of LD_PRELOAD for the programs the recorded one executes, which load
 * libtsan then (emu.c). Never sanitized, no code.
 */

/* what the runtime looks for: this stand-in is loaded, libtsan is not */
__attribute__((visibility("default"))) const char c2cscan_libtsan_standin[] = "libc2cscan-libtsan";
