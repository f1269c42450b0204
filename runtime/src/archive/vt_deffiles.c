/* SPDX-License-Identifier: BSD-3-Clause */
/* Local definition files: each location's clock offsets and id mapping tables, by vt's writer. */
#include "archive/vt_evtw.h"
#include "archive/vt_otf2.h"
#include "archive/vt_otf2_priv.h"
#include "base/vt_log.h"
#include "defs/vt_mpi_defs.h"
#include "defs/vt_unify.h"

#include <errno.h>
#include <fcntl.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * A location's local definitions are its clock offsets and the tables that map its process's
 * local ids to the global ones (vt_otf2_close.c says why). libotf2's definition writer would
 * write them into a chunk of the archive's definition chunk size and zero-fill its unused
 * rest, 256 KiB or more for the few hundred bytes a location has: vt's writer
 * (archive/vt_evtw.h) writes the same bytes (test/unit/test-defw.c) and the file ends
 * after them.
 */

/* A mapping table: its OTF2 type and its sparse map as libotf2 keeps one (vt_evtw.h). */
struct map {
	uint8_t type;
	uint64_t n;
	uint64_t *items;
};

/* The map of n (local, global) pairs; false when out of memory. An empty id map does not
 * read back: no table then (n 0). */
static bool map_of(struct map *m, uint8_t type, uint32_t n, const uint32_t *pairs)
{
	*m = (struct map){type, 0, NULL};
	if (!n)
		return true;
	m->items = malloc(2 * (size_t)n * sizeof(*m->items));
	if (!m->items)
		return false;
	m->n = vt_evtw_sparse_map(pairs, n, m->items);
	return true;
}

/* The communicator map of location ref: the process's, with the ids of the communicators it
 * has a lane of (vt_unify.h); n 0 when the process's applies. false when out of memory. */
static bool thread_comms(const struct vt_unify_maps *maps, uint64_t ref, struct map *m)
{
	uint32_t *pairs = NULL;
	*m = (struct map){OTF2_MAPPING_COMM, 0, NULL};
	for (uint32_t q = 0; q < maps->n_thread_comms; q++) {
		const uint32_t *t = maps->thread_comms + 4 * q;
		if ((t[0] | (uint64_t)t[1] << 32) != ref)
			continue;
		if (!pairs) {
			pairs = malloc((maps->n_comms ? maps->n_comms : 1) * 2 * sizeof(*pairs));
			if (!pairs)
				return false;
			memcpy(pairs, maps->comms, maps->n_comms * 2 * sizeof(*pairs));
		}
		for (uint32_t i = 0; i < maps->n_comms; i++)
			if (pairs[2 * i] == t[2])
				pairs[2 * i + 1] = t[3];
	}
	bool ok = !pairs || map_of(m, OTF2_MAPPING_COMM, maps->n_comms, pairs);
	free(pairs);
	return ok;
}

/* The file of a location, opened when its writer first hands chunks over. */
struct def_file {
	uint64_t ref;
	int fd;
};

static int write_chunks(void *arg, const uint8_t *bytes, size_t n)
{
	struct def_file *f = arg;
	if (f->fd < 0) {
		char path[4096];
		if (!vt_otf2_file_path(path, sizeof(path), f->ref, "def"))
			return -ENAMETOOLONG;
		f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (f->fd < 0)
			return -errno;
	}
	return -vt_otf2_write_all(f->fd, bytes, n);
}

/* Location ref's local definition file: the clock offsets, then the tables of maps (those of
 * n 0 left out), as libotf2 wrote them for vt. 0 or -errno. */
static int write_file(uint64_t ref, uint64_t chunk_size, const struct map *maps, int n_maps)
{
	int n_off;
	const struct vt_mpi_defs_offset *off = vt_mpi_defs_clock_offsets(&n_off);
	struct def_file f = {ref, -1};
	struct vt_evtw w;
	if (vt_evtw_init(&w, (size_t)chunk_size, 1, write_chunks, &f) != 0)
		return -ENOMEM;
	for (int i = 0; i < n_off; i++)
		vt_evtw_clock_offset(&w, off[i].t, off[i].offset, off[i].stddev);
	for (int i = 0; i < n_maps; i++)
		if (maps[i].n)
			vt_evtw_mapping_table(&w, maps[i].type, OTF2_ID_MAP_SPARSE, maps[i].n,
					      maps[i].items);
	int rc = vt_evtw_close(&w);
	if (f.fd >= 0 && close(f.fd) != 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		char path[4096];
		if (!vt_otf2_file_path(path, sizeof(path), ref, "def"))
			snprintf(path, sizeof(path), "location %llu's definitions",
				 (unsigned long long)ref);
		vt_debug("%s: not written (%s)", path, strerror(-rc));
		vt_otf2_file_error(-rc);
	}
	return rc;
}

/* The tables in the order vt writes them; the communicators' second (a thread's own). */
enum { M_REGION, M_COMM, M_METRIC, M_CTX, M_IGEN, M_WIN, M_GROUP, M_IOH, M_IOFILE, M_N };

/*
 * OTF2 wants a local definition file per location, and a location without a communicator
 * map of its own (vt_unify.h: a thread with MPI lanes has one) gets exactly the records of
 * every other such location: so only the first of them is written, and the others' files are
 * hard links to it. On a disk file system, creating a file is the cost of a location at
 * finalisation (an inode allocated; on ext4 without a journal, a look-up for each inode
 * deleted in the last minutes), a link only adds a name. Where the file system refuses (no
 * hard links, too many links to one file), the file is written, and the next locations link
 * to that one.
 */
bool vt_otf2_write_local_defs(OTF2_Archive *archive, struct vt_loc *locs, const char *map, size_t n)
{
	/* The size OTF2_Archive_SetDefChunkSize agreed (rank 0's, on every rank): the readers
	 * read the local files in chunks of it too. */
	uint64_t evt_chunk, def_chunk;
	if (!archive || OTF2_Archive_GetChunkSize(archive, &evt_chunk, &def_chunk) != OTF2_SUCCESS)
		return false;
	if (def_chunk < OTF2_CHUNK_SIZE_MIN || def_chunk > OTF2_CHUNK_SIZE_MAX) {
		vt_otf2_file_error(EINVAL); /* none was agreed */
		return false;
	}
	struct vt_unify_maps maps = {0};
	if (vt_unify_maps_read(map, n, &maps) < 0) /* it holds nothing then */
		maps = (struct vt_unify_maps){0};
	struct map m[M_N];
	bool ok = map_of(&m[M_REGION], OTF2_MAPPING_REGION, maps.n_regions, maps.regions);
	ok &= map_of(&m[M_COMM], OTF2_MAPPING_COMM, maps.n_comms, maps.comms);
	ok &= map_of(&m[M_METRIC], OTF2_MAPPING_METRIC, maps.n_metrics, maps.metrics);
	ok &= map_of(&m[M_CTX], OTF2_MAPPING_CALLING_CONTEXT, maps.n_ctxs, maps.ctxs);
	ok &= map_of(&m[M_IGEN], OTF2_MAPPING_INTERRUPT_GENERATOR, maps.n_igens, maps.igens);
	ok &= map_of(&m[M_WIN], OTF2_MAPPING_RMA_WIN, maps.n_wins, maps.wins);
	ok &= map_of(&m[M_GROUP], OTF2_MAPPING_GROUP, maps.n_groups, maps.groups);
	ok &= map_of(&m[M_IOH], OTF2_MAPPING_IO_HANDLE, maps.n_ios, maps.ios);
	ok &= map_of(&m[M_IOFILE], OTF2_MAPPING_IO_FILE, maps.n_files, maps.files);
	if (!ok)
		vt_otf2_file_error(ENOMEM);

	uint32_t n_inst;
	const struct vt_otf2_instance *in = vt_otf2_instances(&n_inst);
	bool have_common = false; /* the file of the process's common records is written */
	uint64_t common = 0;	  /* and is that location's */
	/* Every thread location, then every METRIC location of counters. */
	struct vt_loc *l = locs;
	for (uint32_t k = 0; ok && (l || k < n_inst);) {
		uint64_t ref = l ? l->ref : in[k].recorder;
		if (l)
			l = l->next;
		else
			k++;
		struct map comms = m[M_COMM], mine;
		if (!thread_comms(&maps, ref, &mine)) {
			vt_otf2_file_error(ENOMEM);
			ok = false;
			break;
		}
		if (!mine.n && have_common && vt_otf2_local_defs_link(common, ref))
			continue;
		if (mine.n)
			m[M_COMM] = mine;
		ok = write_file(ref, def_chunk, m, M_N) == 0;
		m[M_COMM] = comms;
		free(mine.items);
		if (ok && !mine.n) {
			have_common = true;
			common = ref;
		}
	}
	for (int i = 0; i < M_N; i++)
		free(m[i].items);
	vt_unify_maps_free(&maps);
	return ok;
}
