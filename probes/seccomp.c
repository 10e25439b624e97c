/*
 * Known-effect calibration (--inject-seccomp N): a seccomp filter of N BPF
 * instructions that allows every syscall. The filter loads a syscall
 * argument, so the kernel's seccomp action cache cannot short-circuit it and
 * every call pays the filter's real cost in the syscall entry path.
 */
#include "probe.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int seccomp_inject(int instructions)
{
	if (instructions < 2 || instructions > 4096) {
		errno = EINVAL;
		return -1;
	}
	struct sock_filter *prog = calloc((size_t)instructions, sizeof(*prog));
	if (!prog)
		return -1;
	for (int i = 0; i < instructions - 1; i++)
		prog[i] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						      offsetof(struct seccomp_data, args[0]));
	prog[instructions - 1] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog fprog = { .len = (unsigned short)instructions, .filter = prog };
	int rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (rc == 0)
		rc = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
	free(prog);
	return rc;
}
