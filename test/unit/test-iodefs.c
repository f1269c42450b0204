/* SPDX-License-Identifier: BSD-3-Clause */
/* I/O handles of the process (defs/vt_mpi_defs.c): one given back is taken again by its file. */
#include "defs/vt_mpi_defs.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

#define FILES 300

int main(void)
{
	char name[32];
	uint32_t first[FILES], again[FILES];
	/* Many files, each opened once, all given back: the table of free handles grows past
	 * its first size; each file then gets its own handle again. */
	for (int i = 0; i < FILES; i++) {
		snprintf(name, sizeof(name), "file-%d", i);
		first[i] = vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, name);
	}
	for (int i = 0; i < FILES; i++)
		vt_mpi_defs_io_free(first[i]);
	for (int i = FILES - 1; i >= 0; i--) {
		snprintf(name, sizeof(name), "file-%d", i);
		again[i] = vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, name);
	}
	int same = 0;
	for (int i = 0; i < FILES; i++)
		same += first[i] == again[i];
	CHECK(same == FILES);
	uint32_t n;
	vt_mpi_defs_ios(&n);
	CHECK(n == FILES);

	/* One file open three times at once: three handles; given back, they are taken again
	 * (last given back, first taken), and a fourth open at once makes a fourth. */
	uint32_t a = vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "shared");
	uint32_t b = vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "shared");
	uint32_t c = vt_mpi_defs_io_dup(b);
	CHECK(a != b && b != c && a != c);
	vt_mpi_defs_io_free(a);
	vt_mpi_defs_io_free(c);
	CHECK(vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "shared") == c);
	CHECK(vt_mpi_defs_io_dup(b) == a);
	uint32_t d = vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "shared");
	CHECK(d != a && d != b && d != c);
	vt_mpi_defs_ios(&n);
	CHECK(n == FILES + 4);

	/* Another file, or an MPI-IO handle of the same name: never one of these. */
	vt_mpi_defs_io_free(d);
	CHECK(vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "other") != d);
	uint32_t m = vt_mpi_defs_io(42, 0, "shared");
	CHECK(m != d);
	vt_mpi_defs_io_free(m); /* an MPI-IO handle is not the process's own: ignored */
	CHECK(vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "shared") == d);
	CHECK(vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "shared") != m);
	const struct vt_mpi_defs_io *ios = vt_mpi_defs_ios(&n);
	CHECK(strcmp(ios[d].file, "shared") == 0 && ios[d].paradigm == VT_IO_PARADIGM_POSIX);
	CHECK(ios[m].key == 42 && ios[m].paradigm == VT_IO_PARADIGM_MPI);
	CHECK(ios[d].parent == UINT32_MAX);

	/* A stream's handle (ISOC) on its descriptor's: given back, it is taken again only by a
	 * stream on the same parent handle; on another, a new one is defined (and the one
	 * given back stays for its parent). */
	uint32_t p1 = vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "stream");
	uint32_t p2 = vt_mpi_defs_io_local(VT_IO_PARADIGM_POSIX, "stream");
	uint32_t s1 = vt_mpi_defs_io_child(VT_IO_PARADIGM_ISOC, "stream", p1);
	CHECK(s1 != p1 && s1 != p2);
	vt_mpi_defs_io_free(s1);
	uint32_t s2 = vt_mpi_defs_io_child(VT_IO_PARADIGM_ISOC, "stream", p2);
	CHECK(s2 != s1);
	CHECK(vt_mpi_defs_io_child(VT_IO_PARADIGM_ISOC, "stream", p1) == s1);
	ios = vt_mpi_defs_ios(&n);
	CHECK(ios[s1].parent == p1 && ios[s2].parent == p2 && ios[p1].parent == UINT32_MAX);
	CHECK(ios[s1].paradigm == VT_IO_PARADIGM_ISOC && strcmp(ios[s2].file, "stream") == 0);

	/* A file by name (IoDeleteFile): its first handle, whether open or given back; none for
	 * a name never opened, nor for an MPI-IO handle's name in the POSIX paradigm. */
	CHECK(vt_mpi_defs_io_file(VT_IO_PARADIGM_POSIX, "shared") == a);
	CHECK(vt_mpi_defs_io_file(VT_IO_PARADIGM_POSIX, "file-7") == first[7]);
	CHECK(vt_mpi_defs_io_file(VT_IO_PARADIGM_POSIX, "never") == UINT32_MAX);
	vt_mpi_defs_io(43, 0, "mpi-only");
	CHECK(vt_mpi_defs_io_file(VT_IO_PARADIGM_POSIX, "mpi-only") == UINT32_MAX);
	return unit_done();
}
