/* SPDX-License-Identifier: BSD-3-Clause */
/* A group of processes whose collectives are files of one directory: snapshot writers of a job. */
#include "archive/vt_group.h"
#include "base/vt_log.h"

#include <errno.h>
#include <fcntl.h>
#include <otf2/otf2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
	char *dir;
	int rank, size;
	double wait_s;
	unsigned *sent, *got; /* messages to and from each rank so far */
	void (*lost)(int peer, double waited_s);
	struct vt_mpi_ops ops;
} grp;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A message's name: DIR/FROM-TO.SEQ, written first as DIR/.FROM-TO.SEQ. */
static void msg_path(char *buf, size_t len, int from, int to, unsigned seq, bool tmp)
{
	snprintf(buf, len, "%s/%s%d-%d.%u", grp.dir, tmp ? "." : "", from, to, seq);
}

static bool put(int to, const void *buf, size_t n)
{
	char tmp[4096], path[4096];
	unsigned seq = grp.sent[to]++;
	msg_path(tmp, sizeof(tmp), grp.rank, to, seq, true);
	msg_path(path, sizeof(path), grp.rank, to, seq, false);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	const char *p = buf;
	size_t left = n;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		left -= (size_t)w;
	}
	bool ok = close(fd) == 0 && left == 0 && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	return ok;
}

static void *read_all(int fd, size_t *n)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return NULL;
	size_t len = (size_t)st.st_size;
	char *p = malloc(len ? len : 1);
	size_t got = 0;
	while (p && got < len) {
		ssize_t r = read(fd, p + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (p && got != len) {
		free(p);
		p = NULL;
	}
	*n = len;
	return p;
}

void *vt_group_try_recv(int from, size_t *n)
{
	char path[4096];
	msg_path(path, sizeof(path), from, grp.rank, grp.got[from], false);
	double until = now_s() + grp.wait_s;
	long pause_ns = 100000; /* a poll every 0.1 ms at first, every 10 ms after a while */
	for (;;) {
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			void *p = read_all(fd, n);
			close(fd);
			unlink(path);
			grp.got[from]++;
			return p;
		}
		if (errno != ENOENT && errno != EINTR)
			return NULL;
		if (now_s() > until)
			return NULL;
		struct timespec ts = {0, pause_ns};
		nanosleep(&ts, NULL);
		if (pause_ns < 10000000)
			pause_ns *= 2;
	}
}

/* A message the group cannot go on without. */
static void *need(int from, size_t *n)
{
	void *p = vt_group_try_recv(from, n);
	if (!p) {
		if (grp.lost)
			grp.lost(from, grp.wait_s);
		_exit(1);
	}
	return p;
}

static void send_or_lose(int to, const void *buf, size_t n)
{
	if (!put(to, buf, n)) {
		if (grp.lost)
			grp.lost(to, 0);
		_exit(1);
	}
}

/* ---- vt's collectives (defs/vt_mpi_ops.h) ---- */

static void g_bcast(void *buf, size_t n, int root)
{
	if (grp.rank == root) {
		for (int r = 0; r < grp.size; r++)
			if (r != root)
				send_or_lose(r, buf, n);
		return;
	}
	size_t m;
	void *p = need(root, &m);
	memcpy(buf, p, m < n ? m : n);
	free(p);
}

static void *g_gather(const void *buf, size_t n, size_t **sizes)
{
	if (grp.rank != 0) {
		send_or_lose(0, buf, n);
		if (sizes)
			*sizes = NULL;
		return NULL;
	}
	size_t *sz = calloc((size_t)grp.size, sizeof(*sz));
	void **part = calloc((size_t)grp.size, sizeof(*part));
	size_t total = n;
	for (int r = 1; r < grp.size && part; r++) {
		part[r] = need(r, &sz[r]);
		total += sz[r];
	}
	char *all = sz && part ? malloc(total ? total : 1) : NULL;
	size_t at = 0;
	for (int r = 0; all && r < grp.size; r++) {
		const void *from = r == 0 ? buf : part[r];
		size_t k = r == 0 ? n : sz[r];
		if (k)
			memcpy(all + at, from, k);
		at += k;
	}
	if (sz)
		sz[0] = n;
	for (int r = 1; part && r < grp.size; r++)
		free(part[r]);
	free(part);
	if (sizes)
		*sizes = sz;
	else
		free(sz);
	return all;
}

static void *g_scatter(void *const *bufs, const size_t *sizes, size_t *n)
{
	if (grp.rank != 0)
		return need(0, n);
	for (int r = 1; r < grp.size; r++)
		send_or_lose(r, bufs ? bufs[r] : NULL, bufs && sizes ? sizes[r] : 0);
	*n = bufs && sizes ? sizes[0] : 0;
	void *c = malloc(*n ? *n : 1);
	if (c && *n)
		memcpy(c, bufs[0], *n);
	return c;
}

static void g_send(const void *buf, size_t n, int to)
{
	send_or_lose(to, buf, n);
}

static void *g_recv(int from, size_t *n)
{
	return need(from, n);
}

/* ---- libotf2's collectives, the same way ---- */

static size_t type_size(OTF2_Type t)
{
	switch (t) {
	case OTF2_TYPE_UINT8:
	case OTF2_TYPE_INT8:
		return 1;
	case OTF2_TYPE_UINT16:
	case OTF2_TYPE_INT16:
		return 2;
	case OTF2_TYPE_UINT32:
	case OTF2_TYPE_INT32:
	case OTF2_TYPE_FLOAT:
		return 4;
	default:
		return 8;
	}
}

static void o_release(void *u, OTF2_CollectiveContext *g, OTF2_CollectiveContext *l)
{
}

static OTF2_CallbackCode o_size(void *u, OTF2_CollectiveContext *c, uint32_t *size)
{
	*size = (uint32_t)grp.size;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode o_rank(void *u, OTF2_CollectiveContext *c, uint32_t *rank)
{
	*rank = (uint32_t)grp.rank;
	return OTF2_CALLBACK_SUCCESS;
}

/* Partitions are for substrates with files shared by ranks (SIONlib), not the POSIX one. */
static OTF2_CallbackCode o_local(void *u, OTF2_CollectiveContext **l, OTF2_CollectiveContext *g,
				 uint32_t grank, uint32_t gsize, uint32_t lrank, uint32_t lsize,
				 uint32_t file, uint32_t files)
{
	return OTF2_CALLBACK_ERROR;
}

static OTF2_CallbackCode o_free_local(void *u, OTF2_CollectiveContext *l)
{
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode o_barrier(void *u, OTF2_CollectiveContext *c)
{
	free(g_gather("", 0, NULL));
	char none = 0;
	g_bcast(&none, 0, 0);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode o_bcast(void *u, OTF2_CollectiveContext *c, void *data, uint32_t n,
				 OTF2_Type type, uint32_t root)
{
	g_bcast(data, n * type_size(type), (int)root);
	return OTF2_CALLBACK_SUCCESS;
}

/* Rank root receives each rank's count[r] elements (each the same: count NULL, n). */
static void gather_to(const void *in, size_t bytes, void *out, const uint32_t *count, uint32_t n,
		      size_t ts, int root)
{
	if (grp.rank != root) {
		send_or_lose(root, in, bytes);
		return;
	}
	size_t at = 0;
	for (int r = 0; r < grp.size; r++) {
		size_t want = (count ? count[r] : n) * ts, got = 0;
		void *p = r == root ? NULL : need(r, &got);
		memcpy((char *)out + at, r == root ? in : p,
		       r == root    ? bytes
		       : got < want ? got
				    : want);
		free(p);
		at += want;
	}
}

static void scatter_from(const void *in, void *out, size_t bytes, const uint32_t *count, uint32_t n,
			 size_t ts, int root)
{
	if (grp.rank != root) {
		size_t got;
		void *p = need(root, &got);
		memcpy(out, p, got < bytes ? got : bytes);
		free(p);
		return;
	}
	size_t at = 0;
	for (int r = 0; r < grp.size; r++) {
		size_t k = (count ? count[r] : n) * ts;
		if (r == root)
			memcpy(out, (const char *)in + at, k < bytes ? k : bytes);
		else
			send_or_lose(r, (const char *)in + at, k);
		at += k;
	}
}

static OTF2_CallbackCode o_gather(void *u, OTF2_CollectiveContext *c, const void *in, void *out,
				  uint32_t n, OTF2_Type type, uint32_t root)
{
	gather_to(in, n * type_size(type), out, NULL, n, type_size(type), (int)root);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode o_gatherv(void *u, OTF2_CollectiveContext *c, const void *in,
				   uint32_t n_in, void *out, const uint32_t *n_out, OTF2_Type type,
				   uint32_t root)
{
	gather_to(in, n_in * type_size(type), out, n_out, 0, type_size(type), (int)root);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode o_scatter(void *u, OTF2_CollectiveContext *c, const void *in, void *out,
				   uint32_t n, OTF2_Type type, uint32_t root)
{
	scatter_from(in, out, n * type_size(type), NULL, n, type_size(type), (int)root);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode o_scatterv(void *u, OTF2_CollectiveContext *c, const void *in,
				    const uint32_t *n_in, void *out, uint32_t n_out, OTF2_Type type,
				    uint32_t root)
{
	scatter_from(in, out, n_out * type_size(type), n_in, 0, type_size(type), (int)root);
	return OTF2_CALLBACK_SUCCESS;
}

static const OTF2_CollectiveCallbacks otf2_group = {
    .otf2_release = o_release,
    .otf2_get_size = o_size,
    .otf2_get_rank = o_rank,
    .otf2_create_local_comm = o_local,
    .otf2_free_local_comm = o_free_local,
    .otf2_barrier = o_barrier,
    .otf2_bcast = o_bcast,
    .otf2_gather = o_gather,
    .otf2_gatherv = o_gatherv,
    .otf2_scatter = o_scatter,
    .otf2_scatterv = o_scatterv,
};

static void g_set_collectives(void *archive)
{
	OTF2_Archive_SetCollectiveCallbacks(archive, &otf2_group, NULL, NULL, NULL);
}

/* ---- joining and leaving ---- */

void vt_group_on_lost(void (*lost)(int peer, double waited_s))
{
	grp.lost = lost;
}

const struct vt_mpi_ops *vt_group_join(const char *dir, int rank, int size, double wait_s)
{
	struct stat st;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		vt_error("%s: cannot create the directory the snapshot's ranks meet in (%s)", dir,
			 strerror(errno));
		return NULL;
	}
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 0077) != 0) {
		vt_error("%s: not a directory of this user's with mode 0700; the snapshot's ranks "
			 "do not meet there",
			 dir);
		return NULL;
	}
	free(grp.dir);
	free(grp.sent);
	free(grp.got);
	grp.dir = strdup(dir);
	grp.sent = calloc((size_t)size, sizeof(*grp.sent));
	grp.got = calloc((size_t)size, sizeof(*grp.got));
	if (!grp.dir || !grp.sent || !grp.got) {
		vt_error("no memory for a group of %d processes", size);
		return NULL;
	}
	grp.rank = rank;
	grp.size = size;
	grp.wait_s = wait_s;
	grp.ops = (struct vt_mpi_ops){
	    rank, size, g_bcast, g_gather, g_scatter, g_set_collectives, g_send, g_recv};
	return &grp.ops;
}

void vt_group_leave(bool abandon)
{
	if (!grp.dir)
		return;
	/* Abandoned: what was sent is read by nobody. Else the peers read what they were sent
	 * and remove it; the last process to leave finds the directory empty. */
	char path[4096];
	for (int r = 0; abandon && r < grp.size; r++)
		for (unsigned s = 0; s < grp.sent[r]; s++) {
			msg_path(path, sizeof(path), grp.rank, r, s, false);
			unlink(path);
		}
	rmdir(grp.dir);
}
