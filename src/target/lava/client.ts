/**
 * LAVA's REST API (v0.2), the little hintlab needs of it: submit a job,
 * read its state and its log as it grows, cancel it, and check before a
 * design starts that the token works and the device type has devices to
 * run on. Node's fetch; every error names the URL and says what LAVA said.
 */
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { UserError } from '../../errors.ts';
import type { LavaAddress } from './address.ts';

/** LAVA's words for where a job is (`state`) and how it ended (`health`). */
export interface LavaJobStatus {
  id: number;
  state: 'Submitted' | 'Scheduling' | 'Scheduled' | 'Running' | 'Canceling' | 'Finished' | string;
  health: 'Unknown' | 'Complete' | 'Incomplete' | 'Canceled' | string;
  /** The device it runs on, once scheduled. */
  device: string | null;
  failureComment: string | null;
}

/** One entry of a job's log: `lvl` is LAVA's (target, info, debug, error, results, ...). */
export interface LavaLogEntry {
  dt: string;
  lvl: string;
  msg: unknown;
}

export interface LavaDevice {
  hostname: string;
  state: string;
  health: string;
  tags: unknown[];
  worker_host?: string | null;
}

/** Device healths a job can be scheduled on (LAVA runs health checks on Unknown ones first). */
const SCHEDULABLE = new Set(['Good', 'Unknown']);

/** What a fetch needs; tests give a fake server's address. */
export class LavaClient {
  constructor(readonly address: LavaAddress) {}

  /** The page of job `id` in LAVA's web UI (for messages and the run's environment). */
  jobUrl(id: number): string {
    return `${this.address.base}/scheduler/job/${id}`;
  }

  private async request(path: string, init: { method?: string; body?: string } = {}, what = path): Promise<Reply> {
    const url = `${this.address.base}/api/v0.2/${path}`;
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.address.token) headers.Authorization = `Token ${this.address.token}`;
    const method = init.method ?? 'GET';
    let res: Reply | null = null;
    // a look (GET) is tried again after a network error; a submission never is, so no job is submitted twice
    for (let attempt = 1; res === null; attempt++) {
      try {
        res = await send(url, method, headers, init.body);
      } catch (err) {
        if (method !== 'GET' || attempt >= GET_ATTEMPTS) {
          throw new UserError(`LAVA server ${this.address.base} did not answer (${what}${attempt > 1 ? `, ${attempt} tries` : ''}): ${(err as Error).message}; check the server in --target`);
        }
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    if (res.status === 401 || res.status === 403) {
      throw new UserError(`LAVA server ${this.address.base} refused the token (${what}): ${lavaWords(res)}; give a valid token (lava://TOKEN@server/TYPE or $HINTLAB_LAVA_TOKEN)`);
    }
    return res;
  }

  private async json(path: string, what: string): Promise<unknown> {
    const res = await this.request(path, {}, what);
    if (!res.ok) throw new UserError(`LAVA ${what} failed at ${res.url}: HTTP ${res.status}: ${lavaWords(res)}`);
    return JSON.parse(res.text);
  }

  /**
   * The token works (an anonymous request passes too: LAVA then lets anyone
   * submit) and the device type has a device a job can run on: healthy, with
   * the tags, on a worker that is online. Otherwise a message in LAVA's words.
   */
  async checkDeviceType(deviceType: string, tags: string[] = []): Promise<LavaDevice[]> {
    const page = (await this.json(`devices/?device_type=${encodeURIComponent(deviceType)}&limit=1000`, `listing devices of type ${deviceType}`)) as { results?: LavaDevice[] };
    const devices = page.results ?? [];
    const workers = (await this.json('workers/?limit=1000', 'listing workers')) as { results?: { hostname: string; state: string }[] };
    const offline = new Set((workers.results ?? []).filter((w) => w.state !== 'Online').map((w) => w.hostname));
    const usable = devices.filter((d) => SCHEDULABLE.has(d.health) && !offline.has(d.worker_host ?? '') && tags.every((t) => d.tags.includes(t)));
    if (!usable.length) {
      const seen = devices.map((d) => `${d.hostname} (${d.health}${offline.has(d.worker_host ?? '') ? `, worker ${d.worker_host} offline` : ''})`).join(', ') || 'none';
      throw new UserError(`LAVA server ${this.address.base} has no usable device of type '${deviceType}'${tags.length ? ` with tags ${tags.join(',')}` : ''} (devices: ${seen}); bring one online or name another device type in --target`);
    }
    return usable;
  }

  /** Submit a definition; its job id. */
  async submit(definition: string): Promise<number> {
    const res = await this.request('jobs/', { method: 'POST', body: JSON.stringify({ definition }) }, 'submitting a job');
    if (!res.ok) throw new UserError(`LAVA refused the job at ${res.url}: HTTP ${res.status}: ${lavaWords(res)}`);
    const body = JSON.parse(res.text) as { job_ids?: number[] };
    const id = body.job_ids?.[0];
    if (typeof id !== 'number') throw new UserError(`LAVA accepted the job at ${res.url} but named no job id: ${JSON.stringify(body)}`);
    return id;
  }

  async status(id: number): Promise<LavaJobStatus> {
    const job = (await this.json(`jobs/${id}/`, `reading job ${id}`)) as Record<string, unknown>;
    return {
      id,
      state: String(job.state),
      health: String(job.health),
      device: typeof job.actual_device === 'string' ? job.actual_device : null,
      failureComment: typeof job.failure_comment === 'string' && job.failure_comment ? job.failure_comment : null,
    };
  }

  /** The log entries from index `start` on (none yet: an empty list). */
  async logFrom(id: number, start: number): Promise<LavaLogEntry[]> {
    const res = await this.request(`jobs/${id}/logs/?start=${start}`, {}, `reading job ${id}'s log`);
    if (res.status === 404) return [];
    if (!res.ok) throw new UserError(`LAVA log of job ${id} at ${res.url}: HTTP ${res.status}: ${lavaWords(res)}`);
    return parseLavaLog(res.text);
  }

  /** Ask LAVA to cancel job `id` (it ends as `Canceled` once the worker has stopped it). */
  async cancel(id: number): Promise<void> {
    const res = await this.request(`jobs/${id}/cancel/`, {}, `cancelling job ${id}`);
    if (!res.ok) throw new UserError(`LAVA did not cancel job ${id} at ${res.url}: HTTP ${res.status}: ${lavaWords(res)}`);
  }
}

/** An HTTP answer, read whole. */
interface Reply {
  url: string;
  status: number;
  ok: boolean;
  text: string;
}

const REQUEST_TIMEOUT_MS = 30_000;
const GET_ATTEMPTS = 3;
const RETRY_MS = 1000;

/**
 * One request on a connection of its own (no keep-alive: LAVA's gunicorn
 * closes idle connections after 2 s, about when the next look at a job
 * would reuse one, and a request on a closed connection fails).
 */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  const lib = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method, headers: { ...headers, ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) }, agent: false, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        resolve({ url, status, ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code ? `${err.code}${err.message.includes(err.code) ? '' : `: ${err.message}`}` : err.message)));
    req.end(body);
  });
}

/** LAVA's own message in an error response (`detail`, `message`), else the start of the body. */
function lavaWords(res: Reply): string {
  try {
    const body = JSON.parse(res.text) as { detail?: unknown; message?: unknown };
    const said = body.detail ?? body.message;
    if (said !== undefined) return typeof said === 'string' ? said : JSON.stringify(said);
  } catch {
    // not JSON: an HTML error page or a proxy's text
  }
  // an HTML error page says it between its tags
  return res.text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200) || `HTTP ${res.status}`;
}

/**
 * A job log as LAVA serves it: one YAML flow mapping a line
 * (`- {"dt": "...", "lvl": "target", "msg": "..."}`, every scalar double-quoted).
 * A line that does not parse is kept as an `unparsed` entry rather than dropped.
 */
export function parseLavaLog(text: string): LavaLogEntry[] {
  // loaded on first use: `hintlab --help` and every other command stay free of it
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const entries: LavaLogEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('- ')) continue;
    try {
      const v = parse(line.slice(2)) as Partial<LavaLogEntry> | null;
      entries.push({ dt: String(v?.dt ?? ''), lvl: String(v?.lvl ?? ''), msg: v?.msg ?? null });
    } catch {
      entries.push({ dt: '', lvl: 'unparsed', msg: line.slice(2) });
    }
  }
  return entries;
}
