/* SPDX-License-Identifier: BSD-3-Clause */
/* The hooks of communicator constructors, MPI_Comm_set_name and MPI_Comm_free. */
#ifndef VT_MPI_HOOKS_COMM_H
#define VT_MPI_HOOKS_COMM_H

#include "vt_mpi_hooks.h"

/* Communicator constructors: the new communicator is defined (collectively) after. */
#define VTW_COMM_NEW(hook, FN, parent, newcomm, ...)                                               \
	static inline struct vtw_call vtw_##hook##_pre(__VA_ARGS__)                                \
	{                                                                                          \
		return vtw_none;                                                                   \
	}                                                                                          \
	static inline void vtw_##hook##_post(struct vtw_call *c, int ret, __VA_ARGS__)             \
	{                                                                                          \
		(void)c;                                                                           \
		if (ret == MPI_SUCCESS)                                                            \
			vtw_comm_created(*(newcomm), FN, parent);                                  \
	}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
VTW_COMM_NEW(comm_dup, "MPI_Comm_dup", comm, newcomm, MPI_Comm comm, MPI_Comm *newcomm)
VTW_COMM_NEW(comm_dup_with_info, "MPI_Comm_dup_with_info", comm, newcomm, MPI_Comm comm,
	     MPI_Info info, MPI_Comm *newcomm)
VTW_COMM_NEW(comm_split, "MPI_Comm_split", comm, newcomm, MPI_Comm comm, int color, int key,
	     MPI_Comm *newcomm)
VTW_COMM_NEW(comm_split_type, "MPI_Comm_split_type", comm, newcomm, MPI_Comm comm, int split_type,
	     int key, MPI_Info info, MPI_Comm *newcomm)
VTW_COMM_NEW(comm_create, "MPI_Comm_create", comm, newcomm, MPI_Comm comm, MPI_Group group,
	     MPI_Comm *newcomm)
VTW_COMM_NEW(comm_create_group, "MPI_Comm_create_group", comm, newcomm, MPI_Comm comm,
	     MPI_Group group, int tag, MPI_Comm *newcomm)
VTW_COMM_NEW(cart_create, "MPI_Cart_create", comm_old, comm_cart, MPI_Comm comm_old, int ndims,
	     const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart)
VTW_COMM_NEW(cart_sub, "MPI_Cart_sub", comm, newcomm, MPI_Comm comm, const int remain_dims[],
	     MPI_Comm *newcomm)
VTW_COMM_NEW(graph_create, "MPI_Graph_create", comm_old, comm_graph, MPI_Comm comm_old, int nnodes,
	     const int indx[], const int edges[], int reorder, MPI_Comm *comm_graph)
VTW_COMM_NEW(dist_graph_create_adjacent, "MPI_Dist_graph_create_adjacent", comm_old,
	     comm_dist_graph, MPI_Comm comm_old, int indegree, const int sources[],
	     const int sourceweights[], int outdegree, const int destinations[],
	     const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
VTW_COMM_NEW(dist_graph_create, "MPI_Dist_graph_create", comm_old, comm_dist_graph,
	     MPI_Comm comm_old, int n, const int sources[], const int degrees[],
	     const int destinations[], const int weights[], MPI_Info info, int reorder,
	     MPI_Comm *comm_dist_graph)
VTW_COMM_NEW(intercomm_create, "MPI_Intercomm_create", local_comm, newintercomm,
	     MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
	     MPI_Comm *newintercomm)
VTW_COMM_NEW(intercomm_merge, "MPI_Intercomm_merge", intercomm, newintracomm, MPI_Comm intercomm,
	     int high, MPI_Comm *newintracomm)
#pragma GCC diagnostic pop

VTW_HIDDEN void vtw_comm_named(MPI_Comm comm, const char *name);
static inline struct vtw_call vtw_comm_set_name_pre(MPI_Comm comm, const char *name)
{
	(void)comm, (void)name;
	return vtw_none;
}
static inline void vtw_comm_set_name_post(struct vtw_call *c, int ret, MPI_Comm comm,
					  const char *name)
{
	(void)c;
	if (ret == MPI_SUCCESS)
		vtw_comm_named(comm, name);
}

static inline struct vtw_call vtw_comm_free_pre(MPI_Comm *comm)
{
	vtw_comm_freed(*comm);
	return vtw_none;
}
static inline void vtw_comm_free_post(struct vtw_call *c, int ret, MPI_Comm *comm)
{
	(void)c, (void)ret, (void)comm;
}

#endif
