// SPDX-License-Identifier: BSD-3-Clause
// e2e "mpi_groups": one call of each VT_MPI_GROUPS group (and MPI_Wtime 1000 times), 2 ranks.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, peer, a = 1, b = 0, c = 0, d = 0, flag = 0, cls = 0, len = 0;
	double t = 0;
	char host[MPI_MAX_PROCESSOR_NAME];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* QUERY */
	MPI_Comm_size(MPI_COMM_WORLD, &size); /* QUERY */
	for (int i = 0; i < 1000; i++)
		t += MPI_Wtime(); /* QUERY */
	peer = (rank + 1) % size;

	MPI_Comm dup; /* CG */
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Barrier(dup); /* COLL */
	MPI_Comm_free(&dup);
	MPI_Get_processor_name(host, &len);   /* ENV */
	MPI_Error_class(MPI_ERR_COUNT, &cls); /* ERR */
	MPI_Status st;			      /* EXT */
	MPI_Status_set_elements(&st, MPI_INT, 1);
	MPI_Info info; /* MISC */
	MPI_Info_create(&info);
	MPI_Info_free(&info);
	MPI_Sendrecv(&a, 1, MPI_INT, peer, 1, &b, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE); /* P2P */
	MPI_Request r[2];		 /* XNONBLOCK, completed by a P2P wait */
	MPI_Irecv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r[0]);
	MPI_Isend(&a, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &r[1]);
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	MPI_Request null = MPI_REQUEST_NULL; /* XREQTEST */
	MPI_Test(&null, &flag, MPI_STATUS_IGNORE);
	MPI_Request nbc; /* COLL, completed by a P2P wait */
	MPI_Ibarrier(MPI_COMM_WORLD, &nbc);
	MPI_Wait(&nbc, MPI_STATUS_IGNORE);
	MPI_Win win; /* RMA */
	MPI_Win_create(&d, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
	MPI_Comm parent; /* SPAWN */
	MPI_Comm_get_parent(&parent);
	int dims[1] = {0}; /* TOPO */
	MPI_Dims_create(size, 1, dims);
	MPI_Datatype pair; /* TYPE */
	MPI_Type_contiguous(2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	MPI_Type_free(&pair);
	MPI_File fh; /* IO */
	char name[64];
	snprintf(name, sizeof(name), "mpi_groups.%d.tmp", rank);
	MPI_File_open(MPI_COMM_SELF, name,
		      MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
		      &fh);
	MPI_File_close(&fh);

	printf("rank %d: %d %d %d %d\n", rank, b, c, dims[0], t > 0);
	MPI_Finalize();
	return 0;
}
