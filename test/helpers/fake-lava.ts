/**
 * A fake LAVA REST server (node:http) for the client's logic: jobs walk
 * Submitted -> Running on a device -> Finished one step per status read,
 * their log grows by one entry per read, in LAVA's log format (one YAML flow
 * mapping a line). What a test scripts: the console lines, how the job ends
 * (health, failure comment), the token it accepts; jobs run on the devices
 * in turn (job 1 on the first, job 2 on the second, ...). The real server is
 * test/helpers/lava.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { frameLine } from '../../src/launch/probe-protocol.ts';

export interface FakeJobScript {
  console: string[];
  health?: 'Complete' | 'Incomplete' | 'Canceled';
  failureComment?: string;
  /** LAVA `error` entries logged before the end. */
  errors?: string[];
  /** LAVA's result of the job when it failed (the `job` case of the `lava` suite). */
  jobError?: { error_type: string; error_msg: string };
  /** Status reads the job stays Submitted (queued) before it runs. */
  queued?: number;
  /** After this many status reads, the status answers HTTP 500 (a server in trouble). */
  brokenAfter?: number;
}

export interface FakeJob {
  id: number;
  definition: string;
  script: FakeJobScript;
  reads: number;
  logged: number;
  cancelled: boolean;
  state: string;
  health: string;
}

export interface FakeLava {
  url: string;
  jobs: FakeJob[];
  /** Every cancel request, by job id, in the order received. */
  cancels: number[];
  devices: { hostname: string; health: string; state: string; tags: string[]; worker_host: string }[];
  workers: { hostname: string; state: string }[];
  /** The script of the next submitted job (default: no console). */
  next: FakeJobScript[];
  /** When set, the script of a job from its definition (jobs submitted at once arrive in any order). */
  scriptFor?: (definition: string) => FakeJobScript;
  close(): Promise<void>;
}

const yamlStr = (s: string) => JSON.stringify(s);

function logLines(job: FakeJob): string[] {
  const entries = [
    `- {"dt": "2026-01-01T00:00:00", "lvl": "info", "msg": ${yamlStr('start: 1.1 deployimages')}}`,
    `- {"dt": "2026-01-01T00:00:01", "lvl": "info", "msg": ${yamlStr('qemu-system-x86, installed at version: 1:7.2+dfsg-7+deb12u18+b3, host architecture: amd64')}}`,
    `- {"dt": "2026-01-01T00:00:01", "lvl": "info", "msg": ${yamlStr('Boot command: /usr/bin/qemu-system-x86_64 -cpu qemu64 -nographic -m 256 -kernel /k -initrd /i')}}`,
    // as LAVA's ShellLogger: every `"` of the console logged as `\"`
    ...job.script.console.map((l) => `- {"dt": "2026-01-01T00:00:02", "lvl": "target", "msg": ${yamlStr(l.replace(/"/g, '\\"'))}}`),
    ...(job.script.errors ?? []).map((e) => `- {"dt": "2026-01-01T00:00:03", "lvl": "error", "msg": ${yamlStr(e)}}`),
    job.script.jobError
      ? `- {"dt": "2026-01-01T00:00:04", "lvl": "results", "msg": {"case": "job", "definition": "lava", "error_msg": ${yamlStr(job.script.jobError.error_msg)}, "error_type": ${yamlStr(job.script.jobError.error_type)}, "result": "fail"}}`
      : `- {"dt": "2026-01-01T00:00:04", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}`,
  ];
  return entries;
}

function advance(job: FakeJob): void {
  job.reads++;
  if (job.state === 'Finished') return;
  if (job.cancelled) {
    job.state = 'Finished';
    job.health = 'Canceled';
    return;
  }
  const queued = job.script.queued ?? 0;
  if (job.reads <= queued) return;
  if (job.state === 'Submitted') {
    job.state = 'Running';
    return;
  }
  if (job.logged >= logLines(job).length) {
    job.state = 'Finished';
    job.health = job.script.health ?? 'Complete';
  }
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeLava(token = 'good-token'): Promise<FakeLava> {
  const fake: FakeLava = { url: '', jobs: [], cancels: [], devices: [{ hostname: 'qemu01', health: 'Good', state: 'Idle', tags: [], worker_host: 'w1' }], workers: [{ hostname: 'w1', state: 'Online' }], next: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const send = (status: number, data: unknown, type = 'application/json') => {
        res.writeHead(status, { 'Content-Type': type });
        res.end(typeof data === 'string' ? data : JSON.stringify(data));
      };
      if (req.headers.authorization !== `Token ${token}`) { send(401, { detail: 'Invalid token.' }); return; }
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      if (path === '/api/v0.2/devices/') { send(200, { count: fake.devices.length, results: fake.devices }); return; }
      if (path === '/api/v0.2/workers/') { send(200, { count: fake.workers.length, results: fake.workers }); return; }
      if (path === '/api/v0.2/jobs/' && req.method === 'POST') {
        const { definition } = JSON.parse(await body(req)) as { definition: string };
        const job: FakeJob = { id: fake.jobs.length + 1, definition, script: fake.scriptFor?.(definition) ?? fake.next.shift() ?? { console: [] }, reads: 0, logged: 0, cancelled: false, state: 'Submitted', health: 'Unknown' };
        fake.jobs.push(job);
        send(201, { message: 'job(s) successfully submitted', job_ids: [job.id] }); return;
      }
      const m = /^\/api\/v0\.2\/jobs\/(\d+)\/(logs\/|cancel\/)?$/.exec(path);
      const job = m ? fake.jobs[Number(m[1]) - 1] : undefined;
      if (!job) { send(404, { detail: 'Not found.' }); return; }
      if (m![2] === 'cancel/') {
        fake.cancels.push(job.id);
        job.cancelled = true;
        send(200, { message: 'Job cancel signal sent.' }); return;
      }
      if (m![2] === 'logs/') {
        const start = Number(url.searchParams.get('start') ?? 0);
        // the log grows by one entry per read while the job runs
        if (job.state === 'Running') job.logged = Math.min(job.logged + 1, logLines(job).length);
        if (job.state === 'Finished' && job.health !== 'Canceled') job.logged = logLines(job).length;
        const lines = logLines(job).slice(start, job.logged);
        if (lines.length) send(200, `${lines.join('\n')}\n`, 'application/yaml');
        else send(404, { detail: 'Not found.' });
        return;
      }
      if (job.script.brokenAfter !== undefined && job.reads >= job.script.brokenAfter) { send(500, '<h1>Server Error (500)</h1>', 'text/html'); return; }
      advance(job);
      send(200, { id: job.id, state: job.state, health: job.health, actual_device: job.state === 'Submitted' ? null : fake.devices[(job.id - 1) % fake.devices.length]!.hostname, failure_comment: job.state === 'Finished' ? (job.script.failureComment ?? null) : null });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}

/** A plain server on 127.0.0.1 for one hostile case: every request goes to `handler`, and is listed in `seen` as `METHOD URL`. */
export async function startServer(handler: (req: IncomingMessage, res: ServerResponse, path: string) => void): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res, new URL(req.url ?? '/', 'http://x').pathname);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The console of a boot whose probe measures getppid in 2 rounds of 1000 calls, `elapsed` each. */
export function probeConsole(elapsed: number): string[] {
  return [
    'Linux version 6.1.0',
    frameLine('@hl1 hello proto=1 kernel=6.1.0 version=%231 machine=x86_64 pid1=1 cpu=0 ops=1000 warmups=0 rounds=2 seccomp=0'),
    frameLine('@hl1 prepared profile=getppid params='),
    ...[0, 1].map((i) => frameLine(`@hl1 round profile=getppid idx=${i} warmup=0 ops=1000 elapsed=${elapsed} cpu=0`)),
    frameLine('@hl1 done rounds=2 profiles=1'),
    frameLine('@hl1 poweroff status=0'),
  ];
}
