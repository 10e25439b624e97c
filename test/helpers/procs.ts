/**
 * The process tree from /proc, for tests that check nothing outlives
 * hintlab: who descends from a pid, and whether those processes are gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  /** Start time in clock ticks since boot: with the pid, names one process even if the pid is reused. */
  start: string;
  state: string;
}

function readProc(pid: number): Proc | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  const rest = stat.slice(close + 2).split(' ');
  // after "(comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
  return { pid, ppid: Number(rest[1]), comm: stat.slice(open + 1, close), start: rest[19] ?? '', state: rest[0] ?? '' };
}

function table(): Proc[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p): p is Proc => p !== null);
}

/** Every live process below `root` (children, grandchildren, ...), not `root` itself. */
export function descendants(root: number): Proc[] {
  const all = table().filter((p) => p.state !== 'Z');
  const found: Proc[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const next = all.filter((p) => frontier.includes(p.ppid));
    found.push(...next);
    frontier = next.map((p) => p.pid);
  }
  return found;
}

/** True while this very process (same pid and start time) exists and is not a zombie. */
export function isAlive(p: Proc): boolean {
  const now = readProc(p.pid);
  return now !== null && now.start === p.start && now.state !== 'Z';
}

/** Poll until `ready(descendants(root))` holds; throws after `boundMs`. */
export async function waitForTree(root: number, ready: (procs: Proc[]) => boolean, boundMs = 60_000): Promise<Proc[]> {
  const until = Date.now() + boundMs;
  for (;;) {
    const procs = descendants(root);
    if (ready(procs)) return procs;
    if (Date.now() > until) throw new Error(`the processes under ${root} never got ready: ${procs.map((p) => p.comm).join(', ') || 'none'}`);
    await sleep(100);
  }
}

/** Poll until none of `procs` is alive; returns those still alive after `boundMs` (empty when all are gone). */
export async function survivorsAfter(procs: Proc[], boundMs = 10_000): Promise<Proc[]> {
  const until = Date.now() + boundMs;
  for (;;) {
    const alive = procs.filter(isAlive);
    if (alive.length === 0 || Date.now() > until) return alive;
    await sleep(100);
  }
}

/** `procs` as "pid comm" pairs, for assertion messages. */
export const named = (procs: Proc[]): string => procs.map((p) => `${p.pid} ${p.comm}`).join(', ');
