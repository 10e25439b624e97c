/**
 * `--target fake://[LABEL=N,...]`: the fake guest's address (./fake-guest.ts).
 * Each boot of kernel LABEL answers N instructions per call (default 1000
 * for every kernel not named), so a test can drive `hintlab vm` end to end
 * with exact, repeatable numbers and no qemu.
 */
import { printable, UserError } from '../errors.ts';

export interface FakeAddress {
  /** As stored and shown: `fake://B=1010`. */
  name: string;
  /** Instructions per call by kernel label. */
  perCall: ReadonlyMap<string, number>;
}

/** Instructions per call of a kernel the address does not name. */
export const FAKE_DEFAULT_PER_CALL = 1000;

const FORM = 'fake://[LABEL=N,...] (N instructions per call for kernel LABEL)';

export function parseFakeAddress(value: string): FakeAddress {
  const m = /^fake:\/\/([^?#/]*)$/.exec(value);
  if (!m) throw new UserError(`--target ${printable(value)}: not a fake address; use ${FORM}`, 2);
  const perCall = new Map<string, number>();
  for (const part of m[1] ? m[1].split(',') : []) {
    const kv = /^([A-Za-z0-9_.-]+)=(\d{1,9})$/.exec(part);
    if (!kv || Number(kv[2]) === 0) throw new UserError(`--target ${printable(value)}: '${printable(part)}' is not LABEL=N with N >= 1; use ${FORM}`, 2);
    perCall.set(kv[1]!, Number(kv[2]));
  }
  return { name: `fake://${m[1]}`, perCall };
}
