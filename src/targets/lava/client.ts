/**
 * LAVA's REST API (v0.2), the little hintlab needs of it: submit a job,
 * read its state and its log as it grows, cancel it, and check before a
 * design starts that the token works and the device type has devices to
 * run on. Node's fetch; every error names the URL and says what LAVA said.
 */
import http from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import { printable, UserError } from '../../errors.ts';
import { mib } from '../../gunzip.ts';
import type { LavaAddress } from './address.ts';

/** LAVA's words for where a job is (`state`) and how it ended (`health`). */
export interface LavaJobStatus {
  id: number;
  /** 'Submitted', 'Scheduling', 'Scheduled', 'Running', 'Canceling', 'Finished', or what a newer server says. */
  state: string;
  /** 'Unknown', 'Complete', 'Incomplete', 'Canceled', or what a newer server says. */
  health: string;
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

/** How long one request may take and how much of an answer is read; tests give small ones. */
export interface LavaLimits {
  /** The whole request, from connecting to the answer's last byte (default 60 s). */
  deadlineMs?: number;
  /** The largest answer read (default 64 MiB): a job's log page is kilobytes. */
  maxBodyBytes?: number;
}

/**
 * LAVA could not say whether it created the job: an answer to a submission
 * that is not JSON or names no job id, or none within the deadline. The job
 * may be queued in LAVA without hintlab (or its guard) knowing its id, so
 * it would never be cancelled, and every further boot would submit again:
 * the design stops.
 */
export class LavaSubmissionUnknown extends UserError {}

/** A request ended by the caller's abort signal (Ctrl-C): nothing to retry, nothing to say about the server. */
export class LavaRequestAborted extends Error {}

/** What a fetch needs; tests give a fake server's address. */
export class LavaClient {
  private readonly deadlineMs: number;
  private readonly maxBodyBytes: number;
  constructor(
    readonly address: LavaAddress,
    limits: LavaLimits = {},
  ) {
    this.deadlineMs = limits.deadlineMs ?? REQUEST_DEADLINE_MS;
    this.maxBodyBytes = limits.maxBodyBytes ?? MAX_BODY_BYTES;
  }

  /** The page of job `id` in LAVA's web UI (for messages and the run's environment). */
  jobUrl(id: number): string {
    return `${this.address.base}/scheduler/job/${id}`;
  }

  private async request(path: string, init: { method?: string; body?: string; signal?: AbortSignal } = {}, what = path): Promise<Reply> {
    const url = `${this.address.base}/api/v0.2/${path}`;
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.address.token) headers.Authorization = `Token ${this.address.token}`;
    const method = init.method ?? 'GET';
    const limits = { deadlineMs: this.deadlineMs, maxBytes: this.maxBodyBytes, signal: init.signal };
    let res: Reply | null = null;
    // a look (GET) is tried again after a network error; a submission never is, so no job is submitted twice;
    // an answer too slow or too large is not tried again: the next one would be the same
    for (let attempt = 1; res === null; attempt++) {
      try {
        res = await send(url, method, headers, init.body, limits);
      } catch (err) {
        if (err instanceof LavaRequestAborted) throw err;
        if (err instanceof TooLarge) throw new UserError(`LAVA server ${this.address.base} answered more than ${mib(this.maxBodyBytes)} (${what}, ${url}); hintlab reads at most that much of one answer: check that --target names a LAVA server, not a file or a proxy's page`);
        if (method !== 'GET' || attempt >= GET_ATTEMPTS || err instanceof Overdue) {
          const message = `LAVA server ${this.address.base} did not answer (${what}${attempt > 1 ? `, ${attempt} tries` : ''}): ${(err as Error).message}; check the server in --target`;
          throw method === 'POST' && err instanceof Overdue ? new LavaSubmissionUnknown(`${message}${UNKNOWN_JOB}`) : new UserError(message);
        }
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    if (res.status === 401 || res.status === 403) {
      throw new UserError(`LAVA server ${this.address.base} refused the token (${what}): ${lavaWords(res)}; give a valid token (lava://TOKEN@server/TYPE or $HINTLAB_LAVA_TOKEN)`);
    }
    return res;
  }

  private async json(path: string, what: string, signal?: AbortSignal): Promise<unknown> {
    const res = await this.request(path, { signal }, what);
    if (!res.ok) throw new UserError(`LAVA ${what} failed at ${res.url}: ${statusWords(res)}`);
    const body = parseJson(res);
    if (body === NOT_JSON) throw new UserError(`LAVA ${what} at ${res.url}: the answer is not JSON (${excerpt(res.text)}); check that --target names a LAVA server's address`);
    return body;
  }

  /**
   * The token works (an anonymous request passes too: LAVA then lets anyone
   * submit) and the device type has a device a job can run on: healthy, with
   * the tags, on a worker that is online. Otherwise a message in LAVA's words.
   */
  async checkDeviceType(deviceType: string, tags: string[] = []): Promise<LavaDevice[]> {
    const devices = listOf<LavaDevice>(await this.json(`devices/?device_type=${encodeURIComponent(deviceType)}&limit=1000`, `listing devices of type ${deviceType}`));
    const workers = listOf<{ hostname: string; state: string }>(await this.json('workers/?limit=1000', 'listing workers'));
    const offline = new Set(workers.filter((w) => w.state !== 'Online').map((w) => w.hostname));
    const usable = devices.filter((d) => SCHEDULABLE.has(d.health) && !offline.has(d.worker_host ?? '') && tags.every((t) => Array.isArray(d.tags) && d.tags.includes(t)));
    if (!usable.length) {
      const seen = devices.map((d) => `${d.hostname} (${d.health}${offline.has(d.worker_host ?? '') ? `, worker ${d.worker_host} offline` : ''})`).join(', ') || 'none';
      throw new UserError(`LAVA server ${this.address.base} has no usable device of type '${deviceType}'${tags.length ? ` with tags ${tags.join(',')}` : ''} (devices: ${seen}); bring one online or name another device type in --target`);
    }
    return usable;
  }

  /** Submit a definition; its job id. An answer that does not name one is a LavaSubmissionUnknown. */
  async submit(definition: string): Promise<number> {
    const res = await this.request('jobs/', { method: 'POST', body: JSON.stringify({ definition }) }, 'submitting a job');
    if (!res.ok) throw new UserError(`LAVA refused the job at ${res.url}: ${statusWords(res)}`);
    const body = parseJson(res) as { job_ids?: unknown[] } | null | typeof NOT_JSON;
    const id = body === NOT_JSON ? undefined : body?.job_ids?.[0];
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) {
      const said = body === NOT_JSON ? `an answer that is not JSON (${excerpt(res.text)})` : `no job id (${excerpt(JSON.stringify(body))})`;
      throw new LavaSubmissionUnknown(`LAVA answered the submission at ${res.url} with HTTP ${res.status} and ${said}${UNKNOWN_JOB}`);
    }
    return id;
  }

  async status(id: number, signal?: AbortSignal): Promise<LavaJobStatus> {
    const job = (await this.json(`jobs/${id}/`, `reading job ${id}`, signal)) as Record<string, unknown> | null;
    if (job === null || typeof job !== 'object') throw new UserError(`LAVA reading job ${id} at ${this.address.base}: the answer is no job record (${excerpt(JSON.stringify(job))})`);
    return {
      id,
      state: String(job.state),
      health: String(job.health),
      device: typeof job.actual_device === 'string' ? job.actual_device : null,
      failureComment: typeof job.failure_comment === 'string' && job.failure_comment ? job.failure_comment : null,
    };
  }

  /** The log entries from index `start` on (none yet: an empty list); their text is as LAVA sent it. */
  async logFrom(id: number, start: number, signal?: AbortSignal): Promise<LavaLogEntry[]> {
    const res = await this.request(`jobs/${id}/logs/?start=${start}`, { signal }, `reading job ${id}'s log`);
    if (res.status === 404) return [];
    if (!res.ok) throw new UserError(`LAVA log of job ${id} at ${res.url}: ${statusWords(res)}`);
    return parseLavaLog(res.text);
  }

  /** Ask LAVA to cancel job `id` (it ends as `Canceled` once the worker has stopped it). */
  async cancel(id: number, signal?: AbortSignal): Promise<void> {
    const res = await this.request(`jobs/${id}/cancel/`, { signal }, `cancelling job ${id}`);
    if (!res.ok) throw new UserError(`LAVA did not cancel job ${id} at ${res.url}: ${statusWords(res)}`);
  }
}

const UNKNOWN_JOB =
  "; LAVA may have queued the job without hintlab knowing its id, so hintlab cannot cancel it and stopped rather than submit again: look for a job named 'hintlab ...' in the server's job list (/scheduler/alljobs) and cancel it there";

/** `results` of a LAVA list page, each string of it printable; a page without a list is the server's fault, said so. */
function listOf<T>(page: unknown): T[] {
  const results = (page as { results?: unknown } | null)?.results;
  if (results === undefined) return [];
  if (!Array.isArray(results)) throw new UserError(`LAVA answered a list without a list of results (${excerpt(JSON.stringify(page))}); check that --target names a LAVA server`);
  return results.filter((r): r is T => r !== null && typeof r === 'object');
}

/** An HTTP answer, read whole (up to the cap), every string LAVA put in it made printable. */
interface Reply {
  url: string;
  status: number;
  ok: boolean;
  text: string;
  /** A redirect's target (the Location header), printable. */
  location: string | null;
}

const REQUEST_TIMEOUT_MS = 30_000;
const REQUEST_DEADLINE_MS = 60_000;
const MAX_BODY_BYTES = 64 * 2 ** 20;
const GET_ATTEMPTS = 3;
const RETRY_MS = 1000;

/** No whole answer within the request's deadline (a server that drips keeps the idle timeout from firing). */
class Overdue extends Error {}
/** The answer passed the cap on its size. */
class TooLarge extends Error {}

/**
 * One request on a connection of its own (no keep-alive: LAVA's gunicorn
 * closes idle connections after 2 s, about when the next look at a job
 * would reuse one, and a request on a closed connection fails). It ends
 * by its deadline, by the caller's signal, or when the answer passes the
 * cap, whichever comes first; the socket is destroyed each time.
 */
function send(url: string, method: string, headers: Record<string, string>, body: string | undefined, limits: { deadlineMs: number; maxBytes: number; signal?: AbortSignal }): Promise<Reply> {
  const lib = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    if (limits.signal?.aborted) { reject(new LavaRequestAborted('interrupted')); return; }
    const req = lib.request(url, { method, headers: { ...headers, ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) }, agent: false, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (bytes > limits.maxBytes) { end(new TooLarge()); return; }
        chunks.push(c);
      });
      res.on('error', (err) => end(err));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const location = typeof res.headers.location === 'string' ? printable(res.headers.location) : null;
        end(null, { url, status, ok: status >= 200 && status < 300, text: Buffer.concat(chunks).toString('utf8'), location });
      });
    });
    const onAbort = () => end(new LavaRequestAborted('interrupted'));
    const deadline = setTimeout(() => end(new Overdue(`no whole answer within ${seconds(limits.deadlineMs)} s`)), limits.deadlineMs);
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    let ended = false;
    function end(err: Error | null, reply?: Reply): void {
      if (ended) return;
      ended = true;
      clearTimeout(deadline);
      limits.signal?.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(reply!);
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', (err: NodeJS.ErrnoException) => end(new Error(err.code ? `${err.code}${err.message.includes(err.code) ? '' : `: ${err.message}`}` : err.message)));
    req.end(body);
  });
}

const seconds = (ms: number): string => String(Math.round(ms / 100) / 10);

const NOT_JSON = Symbol('not JSON');

/** The answer's JSON with every string in it printable (server text reaches terminals and the store), or NOT_JSON. */
function parseJson(res: Reply): unknown {
  try {
    return printableDeep(JSON.parse(res.text));
  } catch {
    return NOT_JSON;
  }
}

/** `value` with every string in it (keys too) escaped by `printable`. */
export function printableDeep(value: unknown): unknown {
  if (typeof value === 'string') return printable(value);
  if (Array.isArray(value)) return value.map(printableDeep);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [printable(k), printableDeep(v)]));
  return value;
}

/** The start of an answer for a message: printable, one line, at most 120 characters. */
function excerpt(text: string): string {
  const one = printable(text.replace(/\s+/g, ' ').trim());
  return one.length > 120 ? `${one.slice(0, 117)}...` : one || 'empty';
}

/** `HTTP 500: LAVA's words`, or for a redirect where it points (the API is not where --target says). */
function statusWords(res: Reply): string {
  if (res.status >= 300 && res.status < 400) {
    return `HTTP ${res.status}, redirected to ${res.location ?? 'no Location'}; give the server's address as its API answers there in --target (lava+https:// for https)`;
  }
  return `HTTP ${res.status}: ${lavaWords(res)}`;
}

/** LAVA's own message in an error response (`detail`, `message`), else the start of the body; printable. */
function lavaWords(res: Reply): string {
  const body = parseJson(res) as { detail?: unknown; message?: unknown } | typeof NOT_JSON | null;
  if (body !== NOT_JSON && body !== null && typeof body === 'object') {
    const said = body.detail ?? body.message;
    if (said !== undefined) return typeof said === 'string' ? said : printable(JSON.stringify(said));
  }
  // not JSON: an HTML error page or a proxy's text, which says it between its tags
  return printable(res.text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200)) || `HTTP ${res.status}`;
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
      const v = parse(line.slice(2)) as { dt?: string | number; lvl?: string | number; msg?: LavaLogEntry['msg'] } | null;
      entries.push({ dt: String(v?.dt ?? ''), lvl: String(v?.lvl ?? ''), msg: v?.msg ?? null });
    } catch {
      entries.push({ dt: '', lvl: 'unparsed', msg: line.slice(2) });
    }
  }
  return entries;
}
