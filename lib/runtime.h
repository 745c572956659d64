/* SPDX-License-Identifier: MIT */
/*
 * A program made runnable: the object's maps instantiated (global data
 * sections as one-element arrays holding their initial bytes) and an
 * interpreter prepared for one SEC("seccomp") program. `secbpf test` and the
 * conformance runner use it; the supervisor will share one per filter.
 */
#ifndef SECBPF_RUNTIME_H
#define SECBPF_RUNTIME_H

#include <linux/seccomp.h>
#include <stdint.h>

#include "err.h"
#include "object.h"

struct runtime;

/*
 * Instantiate obj's maps and prepare prog. obj must outlive the runtime.
 * Fails (NULL, err set) if the program references a map kind or helper
 * this runtime cannot provide.
 */
struct runtime *runtime_new(const struct object *obj, const struct object_prog *prog,
			    struct secbpf_err *err);
void runtime_free(struct runtime *rt);

/*
 * Run the program on sd, which it sees read-only. *ret is the 32-bit value
 * the program returned (the kernel truncates r0 to 32 bits). Returns 0, or
 * a negative errno with err naming the fault.
 */
int runtime_run(struct runtime *rt, const struct seccomp_data *sd, uint32_t *ret,
		struct secbpf_err *err);

#endif
