/**
 * `--target ssh://[user@]host[:port]` (repeatable), shared by bench and
 * macro: the addresses checked, a short tag per box for run labels, and one
 * login per box made at once, so that a box that cannot be reached fails
 * the command before anything is stored.
 */
import type { ProbeBuild } from '../launch/probe-build.ts';
import { parseSshUrl, type SshAddress } from '../targets/ssh-address.ts';
import { SshTarget } from '../targets/ssh.ts';
import { type CliIO } from './io.ts';
import { UserError } from '../errors.ts';

/** The addresses of `--target`, each given once. */
export function parseTargetUrls(urls: readonly string[]): SshAddress[] {
  const addresses = urls.map((t) => parseSshUrl(t));
  const normal = addresses.map((a) => a.url);
  const dup = normal.find((u, i) => normal.indexOf(u) !== i);
  if (dup) throw new UserError(`--target ${dup} is given twice; give each box once`, 2);
  return addresses;
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

/**
 * Log into every box at once (`$HINTLAB_SSH_CONFIG` names another
 * ssh_config file); if one fails, close the others and say which failed.
 * `probe`: the static probe, for targets that run it.
 */
export async function connectAll(addresses: readonly SshAddress[], probe: ProbeBuild | undefined, io: CliIO): Promise<SshTarget[]> {
  const configFile = io.env.HINTLAB_SSH_CONFIG || undefined;
  const settled = await Promise.allSettled(addresses.map((a) => SshTarget.connect(a, { probe, configFile, env: io.env })));
  const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as Error] : []));
  if (failed.length === 0) return settled.map((s) => (s as PromiseFulfilledResult<SshTarget>).value);
  await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.close()] : [])));
  if (failed.length === 1 && failed[0] instanceof UserError) throw failed[0];
  throw new UserError(failed.map((e) => e.message).join('\n'));
}
