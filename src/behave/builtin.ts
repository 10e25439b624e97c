/**
 * hintlab's own scenarios: one or more for every syscall family `hintlab
 * bench` times (getppid, sched_{get,set}{attr,param,scheduler},
 * sched_yield, sched_{set,get}affinity, select, mincore), written in the
 * scenario file format (./scenario.ts) and checked by the same parser.
 * Each covers the argument classes (valid, NULL, negative and nonexistent
 * pids, another task, invalid policies and priorities, size and flag
 * boundaries, an unprivileged caller) and, for the scheduler, the
 * transitions that matter (docs/behave-scenarios.md, "Built-in scenarios").
 */
import { parseScenarios, type Scenario } from './scenario.ts';

export const BUILTIN_TEXT = `
scenario getppid
getppid
repeat 2 getppid
as nobody
  getppid
end

scenario sched_getattr
peer
sched_getattr pid=self
sched_getattr pid=peer
sched_getattr pid=self size=0            # below SCHED_ATTR_SIZE_VER0
sched_getattr pid=self size=47
sched_getattr pid=self size=48           # VER0: no util clamps
sched_getattr pid=self size=64           # larger than the kernel's struct
sched_getattr pid=self size=4096
sched_getattr pid=self size=4097         # over PAGE_SIZE
sched_getattr pid=self attr=null
sched_getattr pid=-1
sched_getattr pid=nonexistent
sched_getattr pid=self flags=1
repeat 2 sched_getattr pid=self
as nobody
  sched_getattr pid=peer
  sched_getattr pid=self
end

scenario sched_setattr
peer
repeat 3 sched_setattr pid=self          # unchanged SCHED_OTHER, repeated
sched_setattr pid=self attr=null
sched_setattr pid=-1
sched_setattr pid=nonexistent
sched_setattr pid=self callflags=1
sched_setattr pid=self size=0            # 0 means VER0
sched_setattr pid=self size=47           # E2BIG, size written back
sched_setattr pid=self size=64 tail=0    # larger, zero tail: accepted
sched_setattr pid=self size=64 tail=1    # larger, nonzero tail: E2BIG
sched_setattr pid=self size=4097
sched_setattr pid=self policy=77
sched_setattr pid=self policy=OTHER prio=1
sched_setattr pid=self flags=0x100
sched_setattr pid=self nice=20           # clamped to 19
sched_setattr pid=self nice=-21          # clamped to -20
sched_setattr pid=self nice=0
sched_setattr pid=self flags=KEEP_POLICY nice=4
sched_setattr pid=self flags=KEEP_PARAMS policy=BATCH
sched_setattr pid=self flags=RESET_ON_FORK
sched_setattr pid=self policy=OTHER
sched_setattr pid=peer nice=6
sched_setattr pid=self policy=DEADLINE runtime=1000000 deadline=10000000 period=10000000
sched_setattr pid=self policy=DEADLINE runtime=10000000 deadline=1000000 period=10000000
sched_setattr pid=self policy=OTHER
as nobody
  sched_setattr pid=peer nice=1
  sched_setattr pid=self nice=-1
  sched_setattr pid=self policy=FIFO prio=1
  sched_setattr pid=self nice=3
end

scenario sched_setscheduler
peer
sched_setscheduler pid=self policy=FIFO prio=10
repeat 2 sched_setscheduler pid=self policy=FIFO prio=10
sched_setscheduler pid=self policy=RR prio=5
sched_setscheduler pid=self policy=OTHER
sched_setscheduler pid=self policy=BATCH
sched_setscheduler pid=self policy=IDLE
sched_setscheduler pid=self policy=OTHER
sched_setscheduler pid=self policy=FIFO prio=0
sched_setscheduler pid=self policy=FIFO prio=100
sched_setscheduler pid=self policy=RR prio=99
sched_setscheduler pid=self policy=OTHER prio=1
sched_setscheduler pid=self policy=77
sched_setscheduler pid=self policy=-1
sched_setscheduler pid=self policy=DEADLINE
sched_setscheduler pid=self policy=FIFO+RESET_ON_FORK_POLICY prio=1
sched_setscheduler pid=self policy=OTHER
sched_setscheduler pid=self param=null
sched_setscheduler pid=-1 policy=OTHER
sched_setscheduler pid=nonexistent policy=OTHER
sched_setscheduler pid=peer policy=FIFO prio=3
sched_setscheduler pid=peer policy=OTHER
sched_getscheduler pid=self
sched_getscheduler pid=peer
sched_getscheduler pid=-1
sched_getscheduler pid=nonexistent
as nobody
  sched_setscheduler pid=self policy=FIFO prio=1
  sched_setscheduler pid=peer policy=OTHER
  sched_setscheduler pid=self policy=BATCH
  sched_setscheduler pid=self policy=IDLE
  sched_setscheduler pid=self policy=OTHER  # leaving SCHED_IDLE needs RLIMIT_NICE
end

scenario sched_param
peer
sched_getparam pid=self
sched_getparam pid=peer
sched_getparam pid=self param=null
sched_getparam pid=-1
sched_getparam pid=nonexistent
repeat 3 sched_setparam pid=self prio=0
sched_setparam pid=self prio=1
sched_setparam pid=self param=null
sched_setparam pid=-1
sched_setparam pid=nonexistent
sched_setscheduler pid=self policy=FIFO prio=10
sched_setparam pid=self prio=20
sched_getparam pid=self
sched_setparam pid=self prio=0
sched_setparam pid=self prio=100
sched_setscheduler pid=self policy=OTHER
sched_setparam pid=peer prio=0
as nobody
  sched_setparam pid=self prio=0
  sched_setparam pid=peer prio=0
  sched_getparam pid=peer
end

scenario nice
peer
setpriority pid=self nice=5
getpriority pid=self
setpriority pid=self nice=19
setpriority pid=self nice=20             # clamped to 19
setpriority pid=self nice=-20
setpriority pid=self nice=-21            # clamped to -20
setpriority pid=self nice=0
setpriority pid=peer nice=7
getpriority pid=peer
setpriority pid=nonexistent nice=1
setpriority pid=self which=99 nice=1
sched_setattr pid=self nice=3
sched_setscheduler pid=self policy=OTHER  # keeps nice 3
sched_setscheduler pid=self policy=FIFO prio=1
sched_setscheduler pid=self policy=OTHER  # nice survives the RT excursion
repeat 2 setpriority pid=self nice=3
as nobody
  setpriority pid=self nice=10
  setpriority pid=self nice=9              # lowering nice needs RLIMIT_NICE
  setpriority pid=peer nice=1
end

scenario slice
peer
sched_getattr pid=self                   # the default slice
sched_setattr pid=self runtime=3000000   # default -> custom
repeat 2 sched_setattr pid=self runtime=3000000
sched_setparam pid=self prio=0           # keeps the custom slice
sched_setattr pid=self nice=2 runtime=3000000
sched_setattr pid=self nice=0 runtime=0  # custom -> default
sched_setattr pid=self runtime=default   # a custom slice equal to the default in force
base_slice ns=2000000                    # the default changes while the task holds it
spin ms=30
sched_getattr pid=self
sched_setattr pid=self nice=1 runtime=default  # equal to the new default, on the slow path
base_slice ns=1000000
spin ms=30
sched_setattr pid=self nice=0 runtime=0
spin ms=30
sched_setattr pid=self runtime=50000     # below 0.1 ms: clamped
sched_setattr pid=self runtime=200000000 # above 100 ms: clamped
sched_setattr pid=peer runtime=5000000
sched_setparam pid=peer prio=0
sched_setscheduler pid=self policy=FIFO prio=1
sched_setscheduler pid=self policy=OTHER
sched_setattr pid=self runtime=0

scenario uclamp
sched_setattr pid=self flags=UTIL_CLAMP_MIN umin=0      # explicit 0: user-defined
sched_setscheduler pid=self policy=FIFO prio=1          # a user-defined clamp survives
sched_setscheduler pid=self policy=OTHER
sched_setattr pid=self flags=UTIL_CLAMP_MIN umin=0xffffffff  # -1: back to the implicit clamp
sched_setscheduler pid=self policy=FIFO prio=1          # implicit: RT's default minimum
sched_setscheduler pid=self policy=OTHER
sched_setattr pid=self flags=UTIL_CLAMP umin=200 umax=800
repeat 2 sched_setattr pid=self flags=UTIL_CLAMP umin=200 umax=800
sched_setattr pid=self flags=UTIL_CLAMP umin=900 umax=800
sched_setattr pid=self flags=UTIL_CLAMP_MAX umax=1025
sched_setattr pid=self flags=UTIL_CLAMP umin=0xffffffff umax=0xffffffff
sched_setattr pid=self size=48 flags=UTIL_CLAMP_MIN umin=100  # VER0 has no clamp fields

scenario pi_boost
peer
sched_setscheduler pid=peer policy=FIFO prio=10
pi_lock
peer_pi_lock                             # the peer blocks on our PI futex: we run boosted to its priority
sched_setattr pid=self                   # unchanged parameters while boosted
sched_setattr pid=self nice=1            # a change while boosted (the implicit clamp follows the boosted class)
pi_unlock                                # the boost ends
sched_setattr pid=self nice=1            # unchanged parameters after the boost: the implicit clamp must be reset
sched_setattr pid=self nice=0
pi_lock
peer_pi_lock
sched_setattr pid=self flags=UTIL_CLAMP_MIN umin=0   # an explicit clamp while boosted
pi_unlock
sched_setscheduler pid=peer policy=OTHER
sched_setattr pid=self flags=UTIL_CLAMP_MIN umin=0xffffffff

scenario sched_yield
repeat 3 sched_yield
sched_setscheduler pid=self policy=FIFO prio=1
sched_yield
sched_setscheduler pid=self policy=OTHER
as nobody
  sched_yield
end

scenario affinity
peer
sched_getaffinity pid=self
sched_getaffinity pid=self size=8
sched_getaffinity pid=self size=4        # not a multiple of sizeof(long)
sched_getaffinity pid=self size=0
sched_getaffinity pid=self mask=null
sched_getaffinity pid=-1
sched_getaffinity pid=nonexistent
sched_getaffinity pid=peer
sched_setaffinity pid=self mask=cpu0
repeat 2 sched_setaffinity pid=self mask=cpu0
sched_setaffinity pid=self mask=none
sched_setaffinity pid=self mask=cpu63
sched_setaffinity pid=self mask=all
sched_setaffinity pid=self size=0 mask=cpu0
sched_setaffinity pid=self mask=null
sched_setaffinity pid=-1 mask=cpu0
sched_setaffinity pid=nonexistent mask=cpu0
sched_setaffinity pid=peer mask=cpu0
sched_setaffinity pid=peer mask=all
as nobody
  sched_setaffinity pid=peer mask=cpu0
  sched_setaffinity pid=self mask=cpu0
end

scenario affinity-two-cpus
needs cpus=2
peer
sched_setaffinity pid=self mask=cpu1
sched_getaffinity pid=self
sched_setaffinity pid=peer mask=cpu1
sched_setaffinity pid=self mask=all

scenario select
select read=rready+rempty write=wready except=rready+rempty timeout=0
repeat 2 select read=rready+rempty timeout=0
select read=rempty timeout=1000          # nothing ready: waits 1 ms, nothing left
select read=rready timeout=null
select read=rready timeout=1000000       # ready at once: time left
select nfds=0 timeout=0
select nfds=-1 read=rready timeout=0
select read=badfd timeout=0
select read=rready timeout=bad
select read=none write=none except=none timeout=0
select nfds=1 read=rready timeout=0      # the descriptor is above nfds
select read=null write=wready timeout=0

scenario mincore
mincore pages=16
repeat 2 mincore pages=16
touch page=12
mincore pages=16
dontneed page=0
mincore pages=16
mincore addr=map+4 pages=4
mincore pages=0
mincore bytes=1
mincore addr=unaligned pages=1
mincore addr=unmapped pages=1
mincore addr=map+15 pages=2              # runs into the unmapped page
mincore vec=null
mincore addr=null pages=1
mincore addr=kernel pages=1
`;

/** The built-in scenarios, parsed. */
export function builtinScenarios(): Scenario[] {
  return parseScenarios(BUILTIN_TEXT, 'built-in');
}
