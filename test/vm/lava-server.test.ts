/**
 * A LAVA server that misbehaves, on a small HTTP server made for each case
 * (or the fake REST server, test/helpers/fake-lava.ts, with hostile
 * words): answers that drip a byte at a time or never end, a Ctrl-C in
 * the middle of a request, answers far too large, not JSON, a redirect,
 * a submission answered without a job id, and terminal escapes in what the
 * server says. hintlab gives up within its deadlines, says what happened in
 * one message, and never passes the server's escapes on raw.
 */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { ProbeBuild } from '../../src/launch/probe-build.ts';
import { findProfile } from '../../src/bench/profiles.ts';
import { UserError } from '../../src/errors.ts';
import type { Run } from '../../src/model.ts';
import { environmentText } from '../../src/report/run-table.ts';
import { Store } from '../../src/store/store.ts';
import { parseLavaAddress, redactLavaTokens } from '../../src/targets/lava/address.ts';
import { LavaClient } from '../../src/targets/lava/client.ts';
import { startLavaGuard } from '../../src/targets/lava/guard.ts';
import { lavaTarget } from '../../src/targets/lava/target.ts';
import { runVmOnLava } from '../../src/vm/placed.ts';
import type { VmRequest } from '../../src/vm/runner.ts';
import { tempDir } from '../helpers/cli.ts';
import { startFakeLava, startServer } from '../helpers/fake-lava.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const probePath = join(dir, 'probe');
writeFileSync(probePath, 'not a real binary: no lab here runs it');
const probe: ProbeBuild = { path: probePath, static: true, buildId: 'feedfacefeedface', compiler: 'cc', compilerVersion: 'cc 12', flags: ['-static'] };
const image = join(dir, 'vmlinuz');
writeFileSync(image, 'KERNEL');
const ESC = '\x1b';
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

type Handler = (req: IncomingMessage, res: ServerResponse, path: string) => void;

const serve = startServer;

/** One byte every 20 ms for as long as the client listens: the idle timeout never fires. */
function drip(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  const t = setInterval(() => res.write(' '), 20);
  res.on('close', () => clearInterval(t));
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

/** A lab with one good device, whose other answers are `rest`'s. */
const lab =
  (rest: Handler): Handler =>
  (req, res, path) => {
    if (path === '/api/v0.2/devices/') return json(res, 200, { results: [{ hostname: 'qemu01', health: 'Good', state: 'Idle', tags: [], worker_host: 'w1' }] });
    if (path === '/api/v0.2/workers/') return json(res, 200, { results: [{ hostname: 'w1', state: 'Online' }] });
    rest(req, res, path);
  };

const client = (url: string, limits = {}) => new LavaClient(parseLavaAddress(`lava://tok@${url}/qemu`, {}), limits);
const spec = { label: 'A', image, icount: true, cpus: 1, memoryMiB: 256 };
const job = { program: 'probe' as const, args: ['--profile', 'getppid'], timeoutSeconds: 60 };

function request(over: Partial<VmRequest> = {}): VmRequest {
  const kernels = [{ label: 'A', image, manifest: null, configHash: { known: false as const, reason: 'test' } }];
  return { kernels, steps: ['A', 'A'], profiles: [findProfile('getppid')!], ops: 1000, warmups: 0, rounds: 2, accel: 'auto', icount: true, timeoutSeconds: 60, labelPrefix: 'vm-', command: 'hintlab vm ...', hintlabVersion: '0.0.0', ...over };
}

test('a server that drips its answer a byte at a time is given up on at the deadline, once, in one message', { timeout: 20_000 }, async () => {
  const s = await serve(drip);
  try {
    const started = Date.now();
    await assert.rejects(client(s.url, { deadlineMs: 300 }).checkDeviceType('qemu'), (err: Error) => {
      assert.ok(err instanceof UserError, err.stack);
      assert.match(err.message, /^LAVA server http:\/\/127\.0\.0\.1:\d+ did not answer \(listing devices of type qemu\): no whole answer within 0\.3 s; check the server in --target$/);
      return true;
    });
    assert.ok(Date.now() - started < 5000, `gave up after ${Date.now() - started} ms`);
    assert.equal(s.seen.length, 1, 'an answer too slow is not asked again');
  } finally {
    await s.close();
  }
});

test('Ctrl-C while the server drips a job\'s status ends the boot within seconds: the job is asked to cancel, the run ends aborted', { timeout: 40_000 }, async () => {
  const s = await serve(
    lab((req, res, path) => {
      if (path === '/api/v0.2/jobs/' && req.method === 'POST') return json(res, 201, { job_ids: [7] });
      if (path === '/api/v0.2/jobs/7/cancel/') return json(res, 200, { message: 'Job cancel signal sent.' });
      drip(req, res);
    }),
  );
  try {
    const ctl = new AbortController();
    // the default deadline (60 s) and cancel wait (120 s) are far away: the signal ends the look under way
    // (the bound below is half the deadline, so a loaded machine cannot fail it),
    // and the look after the cancel is bounded on its own (5 s)
    const t = lavaTarget(spec, { client: client(s.url), probe, cacheDir: dir, pollMs: 5 });
    const running = t.run(job, () => {}, ctl.signal);
    while (!s.seen.includes('GET /api/v0.2/jobs/7/')) await new Promise((r) => setTimeout(r, 10));
    const abortedAt = Date.now();
    ctl.abort();
    const exit = await running;
    assert.deepEqual(exit.end, { kind: 'aborted' });
    assert.ok(Date.now() - abortedAt < 30_000, `ended ${Date.now() - abortedAt} ms after the abort`);
    assert.ok(s.seen.includes('GET /api/v0.2/jobs/7/cancel/'), `requests: ${s.seen.join(', ')}`);
  } finally {
    await s.close();
  }
});

test('an answer past the size cap is cut off there with one message, not read whole', { timeout: 30_000 }, async () => {
  let sent = 0;
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const more = (): void => {
      while (sent < 600 * 2 ** 20 && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  try {
    await assert.rejects(client(s.url, { maxBodyBytes: 2 * 2 ** 20 }).checkDeviceType('qemu'), (err: Error) => {
      assert.ok(err instanceof UserError, err.stack);
      assert.match(err.message, /^LAVA server http:\/\/\S+ answered more than 2 MiB \(listing devices of type qemu, http:\/\/\S+\/api\/v0\.2\/devices\/\S*\); hintlab reads at most that much of one answer/);
      return true;
    });
    assert.ok(sent < 100 * 2 ** 20, `the server got to send ${sent} bytes`);
  } finally {
    await s.close();
  }
});

test('answers that are not JSON, a redirect, and a list that is no list are messages naming the URL, never an internal error', async () => {
  let mode: 'not json' | 'redirect' | 'no list' = 'not json';
  const s = await serve((_req, res, path) => {
    if (mode === 'not json') return res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"results": [');
    if (mode === 'redirect') return res.writeHead(302, { Location: 'https://lab.example/api/v0.2/devices/' }).end();
    json(res, 200, path === '/api/v0.2/devices/' ? { results: 'none' } : { results: [] });
  });
  const userError = (re: RegExp) => (err: Error) => {
    assert.ok(err instanceof UserError, err.stack);
    assert.match(err.message, re);
    return true;
  };
  try {
    const c = client(s.url);
    await assert.rejects(c.checkDeviceType('qemu'), userError(/^LAVA listing devices of type qemu at http:\/\/\S+\/devices\/\S*: the answer is not JSON \(\{"results": \[\); check that --target names a LAVA server's address$/));
    mode = 'redirect';
    await assert.rejects(c.checkDeviceType('qemu'), userError(/^LAVA listing devices of type qemu failed at \S+: HTTP 302, redirected to https:\/\/lab\.example\/api\/v0\.2\/devices\/; give the server's address as its API answers there in --target/));
    mode = 'no list';
    await assert.rejects(c.checkDeviceType('qemu'), userError(/^LAVA answered a list without a list of results \(\{"results":"none"\}\)/));
  } finally {
    await s.close();
  }
});

test('a submission answered without a job id stops the design after that one job, saying the job may exist', async () => {
  const s = await serve(lab((req, res) => (req.method === 'POST' ? res.writeHead(201, { 'Content-Type': 'text/html' }).end('<html>queued</html>') : json(res, 404, { detail: 'Not found.' }))));
  const store = Store.open(':memory:');
  try {
    await assert.rejects(runVmOnLava(request(), { address: parseLavaAddress(`lava://tok@${s.url}/qemu`, {}), store, probe, abort: new AbortController().signal, cacheDir: dir, pollMs: 2 }), (err: Error) => {
      assert.ok(err instanceof UserError, err.stack);
      assert.match(err.message, /LAVA answered the submission at \S+ with HTTP 201 and an answer that is not JSON \(<html>queued<\/html>\); LAVA may have queued the job without hintlab knowing its id, so hintlab cannot cancel it and stopped rather than submit again/);
      return true;
    });
    assert.equal(s.seen.filter((r) => r.startsWith('POST')).length, 1, 'no second submission');
    assert.match(store.resolveRun('vm-A-1').error ?? '', /an answer that is not JSON/);
  } finally {
    store.close();
    await s.close();
  }
});

test('terminal escapes in what LAVA says (device names, failure comments, error entries, console lines, a 500 page) arrive escaped', async () => {
  const fake = await startFakeLava('tok');
  const osc = `${ESC}]0;owned${ESC}\\`;
  try {
    fake.devices[0]!.hostname = `qemu${ESC}[2J01`;
    fake.next.push({ console: [`Linux version ${osc}6.1`, `bell\x07here`], health: 'Incomplete', failureComment: `boom ${osc}`, errors: [`error ${ESC}[31mred`] });
    const lines: string[] = [];
    const exit = await lavaTarget(spec, { client: client(fake.url), probe, cacheDir: dir, pollMs: 2 }).run(job, (l) => lines.push(l), new AbortController().signal);
    const reason = (exit.end as { reason: string }).reason;
    const text = [reason, exit.describe('the target went away'), ...lines, exit.labJob?.device ?? ''].join('\n');
    assert.ok(!RAW.test(text), `raw control characters in: ${JSON.stringify(text)}`);
    assert.match(reason, /on qemu\\x1b\[2J01 ended Incomplete: boom \\x1b\]0;owned\\x1b\\$/);
    assert.deepEqual(lines, ['Linux version \\x1b]0;owned\\x1b\\6.1', 'bell\\x07here']);
    fake.devices[0]!.health = 'Retired';
    await assert.rejects(client(fake.url).checkDeviceType('qemu'), (err: Error) => !RAW.test(err.message) && /devices: qemu\\x1b\[2J01 \(Retired\)/.test(err.message));
  } finally {
    await fake.close();
  }
  const s = await serve((_req, res) => res.writeHead(500, { 'Content-Type': 'text/html' }).end(`<h1>Server Error ${osc}</h1>`));
  try {
    await assert.rejects(client(s.url).checkDeviceType('qemu'), (err: Error) => !RAW.test(err.message) && /HTTP 500: Server Error \\x1b\]0;owned\\x1b\\/.test(err.message));
  } finally {
    await s.close();
  }
});

test('a failed boot stores LAVA\'s words escaped, and runs --verbose shows each stored job on a line, escaped', async () => {
  const fake = await startFakeLava('tok');
  const store = Store.open(':memory:');
  try {
    fake.next.push({ console: ['Linux version 6.1'], health: 'Incomplete', failureComment: `boom ${ESC}]2;title\x07` });
    await runVmOnLava(request({ steps: ['A'] }), { address: parseLavaAddress(`lava://tok@${fake.url}/qemu`, {}), store, probe, abort: new AbortController().signal, cacheDir: dir, pollMs: 2 });
    const run = store.resolveRun('vm-A-1');
    assert.equal(run.status, 'failed');
    assert.ok(!RAW.test(run.error ?? ''), `stored raw: ${JSON.stringify(run.error)}`);
    assert.match(run.error ?? '', /boom \\x1b\]2;title\\x07/);
    const shown = environmentText(run);
    assert.match(shown, new RegExp(`lava\\.jobs\\[1\\]: job 1 on qemu01, Incomplete, http://${fake.url.replace(/\./g, '\\.')}/scheduler/job/1, kernel sha256 [0-9a-f]{16}, qemu: /usr/bin/qemu-system-x86_64 `));
    assert.doesNotMatch(shown, /\[object Object\]/);
    // a run stored by an older hintlab, its device name raw
    const old = { ...run, environment: { ...run.environment, lava: { server: 'lava://x/qemu', deviceType: 'qemu', jobs: [{ jobId: 4, url: 'http://x/scheduler/job/4', device: `q${ESC}[5m`, health: 'Complete', qemu: null }] } } } as Run;
    assert.match(environmentText(old), /lava\.jobs\[1\]: job 4 on q\\x1b\[5m, Complete, http:\/\/x\/scheduler\/job\/4\n/);
  } finally {
    store.close();
    await fake.close();
  }
});

test('a token holding / or : or a malformed %-escape is never shown: masked up to the last @, refused by name', () => {
  for (const target of ['lava://se/cr:et@lab', 'lava://user:se/cr@et@lab?x']) {
    assert.throws(
      () => parseLavaAddress(target, {}),
      (err: Error) => err instanceof UserError && !/se\/cr|et@lab\?/.test(err.message.replace('***@lab', '')) && /--target lava:\/\/\*\*\*@lab\S*: not a LAVA address/.test(err.message),
    );
  }
  assert.equal(parseLavaAddress('lava://se/cr:et@lab/qemu', {}).token, 'et', 'user:token, the user holding a /');
  assert.equal(parseLavaAddress('lava://to%2Fk@lab/qemu', {}).token, 'to/k');
  assert.deepEqual(redactLavaTokens(['--target', 'lava://a/b:c@d@lab/qemu', '--target=lava+https://x/y@lab/qemu']), ['--target', 'lava://***@lab/qemu', '--target=lava+https://***@lab/qemu']);
  assert.throws(() => parseLavaAddress('lava://s3cr%zz@lab/qemu', {}), (err: Error) => err instanceof UserError && err.exitCode === 2 && /^--target: the token holds a malformed %-escape/.test(err.message) && !err.message.includes('s3cr'));
  assert.throws(() => parseLavaAddress('lava://lab/qemu?tags=a%zz', {}), /--target: tag 'a%zz' holds a malformed %-escape \(write a literal % as %25\)$/);
});

test('the job guard gives up on a server that drips its answer to a cancel: 4 tries, each cut at 5 s, then it exits', { timeout: 90_000 }, async () => {
  const s = await serve(drip);
  try {
    const guard = await startLavaGuard({ base: `http://${s.url}`, token: 'tok' });
    guard.submitted(5);
    // released with a job outstanding: the guard cancels it (or gives up) before it exits
    await guard.release();
    assert.deepEqual(s.seen, Array(4).fill('GET /api/v0.2/jobs/5/cancel/'));
  } finally {
    await s.close();
  }
});
