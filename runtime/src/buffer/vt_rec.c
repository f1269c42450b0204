/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of record kinds: names (for messages and tests) and payload sizes. */
#include "vt_rec.h"

const struct vt_rec_kind_info vt_rec_kinds[VT_REC_KIND_MAX] = {
    [VT_REC_ENTER] = {"enter", 0},
    [VT_REC_LEAVE] = {"leave", 0},
    [VT_REC_MPI_SEND] = {"mpi-send", 1},
    [VT_REC_MPI_RECV] = {"mpi-recv", 1},
    [VT_REC_MPI_ISEND] = {"mpi-isend", 2},
    [VT_REC_MPI_IRECV] = {"mpi-irecv", 2},
    [VT_REC_MPI_ISEND_COMPLETE] = {"mpi-isend-complete", 1},
    [VT_REC_MPI_IRECV_REQUEST] = {"mpi-irecv-request", 1},
    [VT_REC_MPI_REQUEST_TEST] = {"mpi-request-test", 1},
    [VT_REC_MPI_REQUEST_CANCELLED] = {"mpi-request-cancelled", 1},
    [VT_REC_MPI_COLL_BEGIN] = {"mpi-collective-begin", 0},
    [VT_REC_MPI_COLL_END] = {"mpi-collective-end", 2},
    [VT_REC_METRIC] = {"metric", 0},
    [VT_REC_COUNTER] = {"counter", 1},
    [VT_REC_MEASURE] = {"measurement-on-off", 0},
    [VT_REC_SAMPLE] = {"calling-context-sample", 0}, /* and its frames (vt_rec_payloads) */
    [VT_REC_MPI_NBC_REQUEST] = {"mpi-nbc-request", 1},
    [VT_REC_MPI_NBC_COMPLETE] = {"mpi-nbc-complete", 2},
    [VT_REC_RMA_WIN_CREATE] = {"rma-win-create", 0},
    [VT_REC_RMA_WIN_DESTROY] = {"rma-win-destroy", 0},
    [VT_REC_RMA_COLL_BEGIN] = {"rma-collective-begin", 0},
    [VT_REC_RMA_COLL_END] = {"rma-collective-end", 2},
    [VT_REC_RMA_PUT] = {"rma-put", 2},
    [VT_REC_RMA_GET] = {"rma-get", 2},
    [VT_REC_RMA_ATOMIC] = {"rma-atomic", 2},
    [VT_REC_RMA_COMPLETE] = {"rma-op-complete", 1},
    [VT_REC_RMA_LOCK] = {"rma-lock", 1},
    [VT_REC_RMA_GROUP_SYNC] = {"rma-group-sync", 1},
};
