/**
 * Reading a stored environment record back, typed. Records are JSON written
 * by hintlab at any version (see the format history in ./record.ts), so every
 * field may be absent; the tag never is: a record stored before `where`
 * existed reads back as a guest for a VM run, else as the host.
 */
import type { Environment, Known, RunKind } from '../model.ts';
import type { GuestEnvironment, HostEnvironment, RemoteEnvironment, RunEnvironment, Where } from './record.ts';

/** `T` with every field optional, down to the Known<T> leaves (kept whole, so `.known` still narrows). */
export type Stored<T> = T extends Known<unknown>
  ? T
  : T extends readonly unknown[]
    ? T
    : T extends object
      ? { [K in keyof T]?: Stored<T[K]> }
      : T;

type StoredOf<E extends RunEnvironment> = { where: E['where'] } & Stored<Omit<E, 'where'>>;

/** A stored record as read back: tagged, every other field possibly absent. */
export type StoredEnvironment = StoredOf<HostEnvironment> | StoredOf<GuestEnvironment> | StoredOf<RemoteEnvironment>;

/** The part of a run the environment is read from. */
export interface RunWithEnvironment {
  kind: RunKind;
  environment: Environment;
}

/** Where a stored run happened: its tag, or for records older than the tag, guest for a VM run and host otherwise. */
export function whereOf(run: RunWithEnvironment): Where {
  const w = run.environment.where;
  if (w === 'host' || w === 'guest' || w === 'remote') return w;
  return run.kind === 'vm' || run.environment.vm !== undefined ? 'guest' : 'host';
}

/** A run's stored environment record, typed and tagged. */
export function readEnvironment(run: RunWithEnvironment): StoredEnvironment {
  // The store holds JSON hintlab wrote; StoredEnvironment says any field may be missing.
  return { ...run.environment, where: whereOf(run) };
}

/** The guest's VM facts, or undefined for a host or remote run. */
export function vmOf(env: StoredEnvironment): StoredOf<GuestEnvironment>['vm'] {
  return env.where === 'guest' ? env.vm : undefined;
}

/** The box's facts (hostname, url) of a run over ssh, or undefined for a host or guest run. */
export function remoteOf(env: StoredEnvironment): StoredOf<RemoteEnvironment>['remote'] {
  return env.where === 'remote' ? env.remote : undefined;
}

/** A Known<T> as display text ('unknown' when it could not be read), or a plain stored value; undefined when absent. */
export function knownText(v: Known<unknown> | string | number | boolean | null | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'object') {
    return v.known ? String(v.value) : 'unknown';
  }
  return String(v);
}
