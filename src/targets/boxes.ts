/**
 * The box fan-out of `bench --target` and `macro --target`: the same work
 * on every box over ssh, the boxes in parallel. Every box is logged into
 * at once before anything runs, so that a box that cannot be reached fails
 * the command before anything is stored, and every connection is closed
 * however the work ends. Each box has a short tag for run labels (its
 * host, or host:port where two boxes share a host).
 */
import type { ProbeBuild } from '../launch/probe-build.ts';
import { UserError } from '../errors.ts';
import type { SshAddress } from './ssh-address.ts';
import { SshTarget } from './ssh.ts';

/** One box of a fan-out. */
export interface Box {
  target: SshTarget;
  /** Its place in the `--target` list. */
  index: number;
  /** The short name its run labels end in: the host, or host:port where two boxes share a host. */
  tag: string;
  /** `label` for this box's run: `label@tag` when several boxes run, the label itself otherwise. */
  label(label: string | null): string | null;
}

/** What the logins need. */
export interface BoxLogin {
  /** The static probe, for work that runs it (bench); none for work that runs other programs (macro's stress-ng). */
  probe?: ProbeBuild;
  /** `$HINTLAB_SSH_CONFIG` names another ssh_config file. */
  env: NodeJS.ProcessEnv;
}

/** A short name per box for labels: the host, or host:port where two boxes share a host. */
export function hostTags(addresses: readonly SshAddress[]): string[] {
  return addresses.map((a) => (addresses.filter((b) => b.host === a.host).length > 1 && a.port !== null ? `${a.host}:${a.port}` : a.host));
}

/** `label` for the run on box `tag`: `label@tag` when several boxes run, the label itself otherwise. */
export function boxLabel(label: string | null, tag: string, several: boolean): string | null {
  if (!several) return label;
  return label ? `${label}@${tag}` : tag;
}

/** Log into every box at once; if one fails, close the others and say which failed. */
async function connectAll(addresses: readonly SshAddress[], login: BoxLogin): Promise<SshTarget[]> {
  const configFile = login.env.HINTLAB_SSH_CONFIG || undefined;
  const settled = await Promise.allSettled(addresses.map((a) => SshTarget.connect(a, { probe: login.probe, configFile, env: login.env })));
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []));
  if (failed.length === 0) return settled.map((s) => (s as PromiseFulfilledResult<SshTarget>).value);
  await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.close()] : [])));
  if (failed.length === 1 && failed[0] instanceof UserError) throw failed[0];
  throw new UserError(failed.map((e) => e.message).join('\n'));
}

/** Log into every box, give them all to `work`, and close every connection once it ends (resolved or not). */
export async function onBoxes<T>(addresses: readonly SshAddress[], login: BoxLogin, work: (boxes: Box[]) => Promise<T>): Promise<T> {
  const targets = await connectAll(addresses, login);
  const tags = hostTags(addresses);
  const several = targets.length > 1;
  const boxes = targets.map((target, index): Box => ({ target, index, tag: tags[index]!, label: (label) => boxLabel(label, tags[index]!, several) }));
  try {
    return await work(boxes);
  } finally {
    await Promise.all(targets.map((t) => t.close()));
  }
}

/**
 * One progress line over every box: each box reports its own done and
 * total, the line shows their sums and what the last box to report is at.
 * `totals`: each box's total before it first reports. Returns box i's reporter.
 */
export function boxProgress(totals: readonly number[], update: (done: number, total: number, what: string) => void): (i: number, tag: string) => (done: number, total: number, what: string) => void {
  const done = totals.map(() => 0);
  const total = [...totals];
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return (i, tag) => (d, t, what) => {
    done[i] = d;
    total[i] = t;
    update(sum(done), sum(total), `${tag} ${what}`);
  };
}
