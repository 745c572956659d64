// SPDX-License-Identifier: MIT
/* helper_values without its task storage map, for unprivileged loaders
 * (6.1 creates task storage maps only for bpf_capable()). */
#define HELPER_VALUES_NO_TASK_STORAGE
#include "helper_values.bpf.c"
