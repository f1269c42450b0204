/* SPDX-License-Identifier: BSD-3-Clause */
/* vt-sim's classes of regions (enum vt_sim_class): MPI, point-to-point, collective, by name. */
#include "vts.h"

#include <otf2/otf2.h>
#include <string.h>

static bool name_is(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

uint32_t *vts_classify(const struct vtr_trace *tr)
{
	static const char *const sends[] = {
	    "MPI_Send",	  "MPI_Bsend",	   "MPI_Rsend",	     "MPI_Isend",      "MPI_Ibsend",
	    "MPI_Irsend", "MPI_Send_init", "MPI_Bsend_init", "MPI_Rsend_init", NULL};
	static const char *const ssends[] = {"MPI_Ssend", "MPI_Issend", "MPI_Ssend_init", NULL};
	static const char *const sendrecvs[] = {"MPI_Sendrecv", "MPI_Sendrecv_replace", NULL};
	static const char *const recvs[] = {
	    "MPI_Recv",	    "MPI_Irecv",    "MPI_Recv_init", "MPI_Wait",    "MPI_Waitall",
	    "MPI_Waitany",  "MPI_Waitsome", "MPI_Test",	     "MPI_Testall", "MPI_Testany",
	    "MPI_Testsome", "MPI_Mrecv",    "MPI_Imrecv",    NULL};
	uint32_t *c = vtr_xcalloc(tr->nregions ? tr->nregions : 1, sizeof(uint32_t));
	for (size_t r = 0; r < tr->nregions; r++) {
		const struct vtr_region *g = &tr->regions[r];
		if (!g->defined)
			continue;
		bool mpi = g->paradigm == OTF2_PARADIGM_MPI || !strncmp(g->name, "MPI_", 4);
		if (!mpi)
			continue;
		uint32_t f = VT_SIM_MPI;
		switch (g->role) {
		case OTF2_REGION_ROLE_BARRIER:
			f |= VT_SIM_COLLECTIVE | VT_SIM_ALL | VT_SIM_ALL_TO_ALL;
			break;
		case OTF2_REGION_ROLE_COLL_ONE2ALL:
			f |= VT_SIM_COLLECTIVE | VT_SIM_ONE_TO_ALL;
			break;
		case OTF2_REGION_ROLE_COLL_ALL2ONE:
			f |= VT_SIM_COLLECTIVE | VT_SIM_ALL_TO_ONE;
			break;
		case OTF2_REGION_ROLE_COLL_ALL2ALL:
		case OTF2_REGION_ROLE_COLL_OTHER:
			f |= VT_SIM_COLLECTIVE | VT_SIM_ALL_TO_ALL;
			break;
		default:
			break;
		}
		if (name_is(g->name, sends))
			f |= VT_SIM_P2P | VT_SIM_SEND;
		else if (name_is(g->name, ssends))
			f |= VT_SIM_P2P | VT_SIM_SEND | VT_SIM_SYNC_SEND;
		else if (name_is(g->name, sendrecvs))
			f |= VT_SIM_P2P | VT_SIM_SENDRECV;
		else if (name_is(g->name, recvs))
			f |= VT_SIM_P2P | VT_SIM_RECV;
		if (!(f & (VT_SIM_P2P | VT_SIM_COLLECTIVE)))
			f |= VT_SIM_SINGLE_RANK;
		c[r] = f;
	}
	return c;
}