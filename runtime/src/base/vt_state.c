/* SPDX-License-Identifier: BSD-3-Clause */
/* The process-wide state word of vt (base/vt_state.h), zero (NEW) until the lifecycle starts. */
#include "base/vt_state.h"

struct vt_state_data vt_state_data;
