/**
 * Hostile cases of the third pass about LAVA labs: `hintlab vm --target
 * lava://...` (the built CLI) against a server on 127.0.0.1 that drips its
 * answers, sends 600 MB, answers what is not JSON or a redirect, says
 * things with terminal escapes, answers a submission without a job id; a
 * Ctrl-C while it drips; tokens holding `/` or a malformed %-escape; and
 * `--resume` after the kernel was rebuilt in place or with other --rounds.
 * The server runs in this process, so hintlab runs with an asynchronous
 * spawn here, never spawnSync (which would stop the server answering).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { type FakeLava, probeConsole, startFakeLava, startServer } from '../../test/helpers/fake-lava.ts';
import { BIN, type Case, crashed, refused, type Result, type Scratch, short, summary } from './harness.ts';

const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const QUICK = ['--profile', 'getppid', '--ops', '1000', '--warmups', '0', '--rounds', '2', '--icount'];

/** `hintlab ARGS` in the background; `during` runs once the child has started (to signal it). */
function hintlabAsync(s: Scratch, args: string[], during?: (child: ReturnType<typeof spawn>, stderr: () => string) => void, timeoutMs = 180_000): Promise<Result & { ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: s.dir, env: s.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  during?.(child, () => stderr);
  return new Promise((resolve) =>
    child.on('exit', (status, signal) => {
      clearTimeout(timer);
      resolve({ pid: child.pid ?? 0, output: [], stdout, stderr, status, signal, ms: Date.now() - started });
    }),
  );
}

/** A bzImage header and nothing behind it: vm takes it; the fake lab never boots it. */
function kernel(s: Scratch, name: string, tail = ''): string {
  const path = join(s.dir, name);
  const image = Buffer.alloc(0x300);
  image.write('HdrS', 0x202, 'latin1');
  writeFileSync(path, Buffer.concat([image, Buffer.from(tail)]));
  return path;
}

type Handler = (req: IncomingMessage, res: ServerResponse, path: string) => void;
const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

/** A lab with one good device on an online worker (unless `devices` answers that list); the rest of its answers are `rest`'s. */
function lab(rest: Handler, devices?: Handler): ReturnType<typeof startServer> {
  return startServer((req, res, path) => {
    if (path === '/api/v0.2/devices/' && devices) { devices(req, res, path); return; }
    if (path === '/api/v0.2/devices/') return json(res, 200, { results: [{ hostname: 'qemu01', health: 'Good', state: 'Idle', tags: [], worker_host: 'w1' }] });
    if (path === '/api/v0.2/workers/') return json(res, 200, { results: [{ hostname: 'w1', state: 'Online' }] });
    rest(req, res, path);
  });
}

function drip(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const t = setInterval(() => res.write(' '), 10_000);
  res.write(' ');
  res.on('close', () => clearInterval(t));
}

/** A case against a server answering the devices list with `devices`. */
function devicesCase(action: string, expected: string, devices: Handler, judge: (r: Result & { ms: number }) => boolean): Case {
  return {
    action,
    expected,
    async run(s) {
      const server = await lab((_req, res) => json(res, 404, { detail: 'Not found.' }), devices);
      try {
        const r = await hintlabAsync(s, ['vm', '--target', `lava://tok@${server.url}/qemu`, '--kernel', `A=${kernel(s, 'k-dev')}`, '--order', 'A', ...QUICK, '--db', join(s.dir, 'lava.db')]);
        return { observed: `${summary(r)} (after ${Math.round(r.ms / 1000)} s)`, clean: judge(r) && !crashed(r) };
      } finally {
        await server.close();
      }
    },
  };
}

/** The fake REST server with scripted consoles, for cases that boot. */
async function withFake<T>(fn: (fake: FakeLava) => Promise<T>): Promise<T> {
  const fake = await startFakeLava('tok');
  try {
    return await fn(fake);
  } finally {
    await fake.close();
  }
}

const cases: Case[] = [
  devicesCase(
    'vm --target lava:// on a server that drips its devices list, one byte every 10 s',
    'gives up at the 60 s deadline with one message, exit 1',
    (_req, res) => drip(res),
    (r) => r.status === 1 && /no whole answer within 60 s/.test(r.stderr) && r.ms < 90_000,
  ),
  {
    action: 'Ctrl-C (SIGINT) while the server drips the status of the job just submitted',
    expected: 'ends within seconds, exit 130, the job asked to cancel',
    async run(s) {
      const server = await lab((req, res, path) => {
        if (path === '/api/v0.2/jobs/' && req.method === 'POST') return json(res, 201, { job_ids: [7] });
        if (path === '/api/v0.2/jobs/7/cancel/') return json(res, 200, { message: 'Job cancel signal sent.' });
        if (path === '/api/v0.2/jobs/7/logs/') return json(res, 404, { detail: 'Not found.' });
        drip(res);
      });
      let signalledAt = 0;
      try {
        const r = await hintlabAsync(s, ['vm', '--target', `lava://tok@${server.url}/qemu`, '--kernel', `A=${kernel(s, 'k-int')}`, '--order', 'A', ...QUICK, '--db', join(s.dir, 'lava.db')], (child) => {
          const poll = setInterval(() => {
            if (!server.seen.includes('GET /api/v0.2/jobs/7/')) return;
            clearInterval(poll);
            setTimeout(() => ((signalledAt = Date.now()), child.kill('SIGINT')), 500);
          }, 50);
          child.on('exit', () => clearInterval(poll));
        });
        const after = signalledAt ? (Date.now() - signalledAt) / 1000 : NaN;
        const cancelled = server.seen.includes('GET /api/v0.2/jobs/7/cancel/');
        return { observed: `${summary(r)}; ended ${after.toFixed(1)} s after SIGINT; cancel ${cancelled ? 'requested' : 'never requested'}`, clean: r.status === 130 && after < 30 && cancelled && !crashed(r) };
      } finally {
        await server.close();
      }
    },
  },
  devicesCase(
    'a 600 MB answer to the devices list',
    'stops reading at 64 MiB, one message, exit 1, no stack',
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 0x20);
      let sent = 0;
      const more = (): void => {
        while (sent < 600 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    },
    (r) => r.status === 1 && /answered more than 64 MiB/.test(r.stderr),
  ),
  devicesCase('the devices list answered with malformed JSON', 'one message naming the URL, exit 1, no internal error', (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"results": ['), (r) => r.status === 1 && /the answer is not JSON/.test(r.stderr)),
  devicesCase('the devices list answered with a 302 to https', 'the message names where it redirects, exit 1', (_req, res) => res.writeHead(302, { Location: 'https://lab.example/api/v0.2/devices/' }).end(), (r) => r.status === 1 && /HTTP 302, redirected to https:\/\/lab\.example\//.test(r.stderr)),
  devicesCase(
    'a 500 page and device names holding ESC and OSC sequences',
    'the escapes shown as \\x1b, never raw on stderr',
    (_req, res) => res.writeHead(500, { 'Content-Type': 'text/html' }).end('<h1>Server Error \x1b]0;owned\x07\x1b[2J</h1>'),
    (r) => r.status === 1 && !RAW.test(r.stderr) && /\\x1b\]0;owned/.test(r.stderr),
  ),
  {
    action: 'a job whose failure comment, error entries and console carry OSC and CSI sequences; then runs --verbose',
    expected: 'stored and shown escaped; the job on its own line, not [object Object]',
    run: (s) =>
      withFake(async (fake) => {
        fake.next.push({ console: ['Linux version 6.1\x1b]0;title\x07'], health: 'Incomplete', failureComment: 'boom \x1b]2;owned\x07', errors: ['err \x1b[31mred'] });
        const db = join(s.dir, 'esc.db');
        const r = await hintlabAsync(s, ['vm', '--target', `lava://tok@${fake.url}/qemu`, '--kernel', `A=${kernel(s, 'k-esc')}`, '--order', 'A', ...QUICK, '--db', db]);
        const shown = await hintlabAsync(s, ['runs', 'vm-A-1', '--verbose', '--db', db]);
        const jobLine = /lava\.jobs\[1\]: job 1 on qemu01, Incomplete/.test(shown.stdout);
        const raw = RAW.test(r.stderr) || RAW.test(shown.stdout.replace(/\n/g, ''));
        return { observed: `${summary(r)}; runs --verbose: ${raw ? 'raw escapes' : 'escaped'}, ${jobLine ? 'job line shown' : short(shown.stdout.match(/lava\.jobs.*/)?.[0] ?? 'no lava.jobs line')}`, clean: !raw && jobLine && !crashed(r) && shown.status === 0 };
      }),
  },
  {
    action: 'a submission answered 201 with an HTML page (no job id), order AA',
    expected: 'one submission, then stops saying the job may exist, exit 1',
    async run(s) {
      const server = await lab((req, res) => (req.method === 'POST' ? res.writeHead(201, { 'Content-Type': 'text/html' }).end('<html>queued</html>') : json(res, 404, { detail: 'Not found.' })));
      try {
        const r = await hintlabAsync(s, ['vm', '--target', `lava://tok@${server.url}/qemu`, '--kernel', `A=${kernel(s, 'k-sub')}`, '--order', 'AA', ...QUICK, '--db', join(s.dir, 'lava.db')]);
        const posts = server.seen.filter((l) => l.startsWith('POST')).length;
        return { observed: `${summary(r)}; ${posts} submission(s)`, clean: r.status === 1 && posts === 1 && /may have queued the job/.test(r.stderr) && !crashed(r) };
      } finally {
        await server.close();
      }
    },
  },
  ...(
    [
      ['--target lava://se/cr:et@lab (a token holding / and :)', 'lava://se/cr:et@lab', /\*\*\*@lab/],
      ['--target lava://s3cr%zz@lab/qemu (a malformed %-escape in the token)', 'lava://s3cr%zz@lab/qemu', /the token holds a malformed %-escape/],
    ] as const
  ).map(
    ([action, target, mentions]): Case => ({
      action,
      expected: 'refused with exit 2, the token never printed',
      async run(s) {
        const r = await hintlabAsync(s, ['vm', '--target', target, '--kernel', `A=${kernel(s, 'k-tok')}`, '--order', 'A', ...QUICK, '--db', join(s.dir, 'lava.db')]);
        return { observed: summary(r), clean: refused(r, mentions) && !/se\/cr|cr:et|s3cr/.test(r.stderr) };
      },
    }),
  ),
  {
    action: 'vm --resume after the bzImage was rebuilt in place, then with other --rounds',
    expected: 'boots again each time, saying why',
    run: (s) =>
      withFake(async (fake) => {
        fake.scriptFor = () => ({ console: probeConsole(400_000) });
        const image = kernel(s, 'k-resume');
        const db = join(s.dir, 'resume.db');
        const args = (rounds = '2') => ['vm', '--target', `lava://tok@${fake.url}/qemu`, '--kernel', `A=${image}`, '--order', 'A', ...QUICK.slice(0, -3), '--rounds', rounds, '--icount', '--db', db, '--resume'];
        const first = await hintlabAsync(s, args());
        const unchanged = await hintlabAsync(s, args());
        kernel(s, 'k-resume', 'rebuilt');
        const rebuilt = await hintlabAsync(s, args());
        const rounds = await hintlabAsync(s, args('3'));
        const said = (r: Result) => short(r.stderr.match(/resume: .*/)?.[0] ?? 'no resume line', 70);
        const ok = first.status === 0 && /already stored complete/.test(unchanged.stderr) && /boots again: kernel image .* changed since/.test(rebuilt.stderr) && /boots again: stored with --rounds 2, not 3/.test(rounds.stderr);
        return { observed: `${fake.jobs.length} jobs for 4 runs; rebuilt: ${said(rebuilt)}; --rounds 3: ${said(rounds)}`, clean: ok && fake.jobs.length === 3 };
      }),
  },
];

/** Every action starts with `LAVA:`, so `bench/hostile-pass.ts LAVA` runs these alone. */
export const lavaCases: Case[] = cases.map((c) => ({ ...c, action: `LAVA: ${c.action}` }));
