/* struct sched_attr as in include/uapi/linux/sched/types.h (SCHED_ATTR_SIZE_VER1). */
#ifndef HINTLAB_SCHED_ATTR_H
#define HINTLAB_SCHED_ATTR_H
#include <stdint.h>

struct hl_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};
#endif
