// SPDX-License-Identifier: MIT
/*
 * The public headers as a C++ program sees them: include/secbpf.h and
 * include/secbpf/agent.h compile as C++11 with -Wall -Wextra -pedantic
 * -Werror, and the API links with C names (extern "C").
 */
#include <secbpf.h>
#include <secbpf/agent.h>

#include <cstdio>
#include <cstring>

/* One test, counted by scripts/test as Criterion's are. */
static int result(bool ok)
{
	std::printf("[====] Synthesis: Tested: 1 | Passing: %d | Failing: %d | Crashing: 0 \n",
		    ok ? 1 : 0, ok ? 0 : 1);
	return ok ? 0 : 1;
}

int main()
{
	secbpf_agent_request req;
	secbpf_agent_reply reply;
	secbpf_tier tier = SECBPF_TIER_RESTRICTED;
	secbpf_attach_opts opts;

	std::memset(&req, 0, sizeof(req));
	std::memset(&reply, 0, sizeof(reply));
	std::memset(&opts, 0, sizeof(opts));
	opts.sz = sizeof(opts);
	req.hdr.magic = SECBPF_AGENT_MAGIC;
	req.hdr.version = SECBPF_AGENT_VERSION;
	req.hdr.type = SECBPF_AGENT_REQUEST;
	reply.hdr.type = SECBPF_AGENT_REPLY;
	if (secbpf_tier_parse("privileged", &tier) || tier != SECBPF_TIER_PRIVILEGED) {
		std::fprintf(stderr, "secbpf_tier_parse failed\n");
		return result(false);
	}
	if (std::strcmp(secbpf_tier_name(SECBPF_TIER_UNPRIVILEGED), "unprivileged")) {
		std::fprintf(stderr, "secbpf_tier_name failed\n");
		return result(false);
	}
	if (secbpf_object__open_file("/nonexistent/x.bpf.o", NULL)) {
		std::fprintf(stderr, "opened a missing file\n");
		return result(false);
	}
	std::printf("ok: %zu %zu %zu\n", sizeof(req.hdr), sizeof(req), sizeof(reply));
	return result(true);
}
