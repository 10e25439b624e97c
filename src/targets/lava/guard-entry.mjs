// The LAVA job guard (./guard.ts): a separate process in its own session
// that cancels the jobs hintlab submitted when hintlab dies without
// finishing them (kill -9, a crash). Its first stdin line is JSON
// {base, token}: the server's base URL and the API token (never on a
// command line); it answers `armed`. Then one line per event: `+ID` a job
// submitted, `-ID` a job hintlab has finished with, `done` hintlab ended
// cleanly. End of input after `done`: exit. End of input without it:
// cancel every job still outstanding (GET api/v0.2/jobs/ID/cancel/, as
// hintlab's client does), a few tries each, say so on stderr, exit.
// Plain JavaScript, so it starts without a TypeScript loader.
import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';

const TRIES = 4;
const RETRY_MS = 1000;
const REQUEST_TIMEOUT_MS = 5000;

let server = null;
let done = false;
let ending = false;
const outstanding = new Set();

function cancel(id) {
  const url = `${server.base}/api/v0.2/jobs/${id}/cancel/`;
  const headers = { Accept: 'application/json', ...(server.token ? { Authorization: `Token ${server.token}` } : {}) };
  const lib = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    // a whole answer within the time, not just some byte: a server that drips would otherwise hold the guard
    const deadline = setTimeout(() => req.destroy(new Error(`no whole answer within ${REQUEST_TIMEOUT_MS / 1000} s`)), REQUEST_TIMEOUT_MS);
    const req = lib.request(url, { method: 'GET', headers, agent: false, timeout: REQUEST_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(deadline);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`HTTP ${status}`));
      });
      res.on('error', (err) => reject(err));
      res.on('close', () => {
        clearTimeout(deadline);
        if (!res.complete) reject(new Error(`no whole answer within ${REQUEST_TIMEOUT_MS / 1000} s`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    req.end();
  });
}

async function cancelWithTries(id) {
  const page = `${server.base}/scheduler/job/${id}`;
  for (let attempt = 1; ; attempt++) {
    try {
      await cancel(id);
      process.stderr.write(`hintlab guard: hintlab ended without finishing LAVA job ${id}; asked LAVA to cancel it: ${page}\n`);
      return true;
    } catch (err) {
      if (attempt >= TRIES) {
        process.stderr.write(`hintlab guard: cannot cancel LAVA job ${id} (${attempt} tries): ${err.message}; cancel it by hand: ${page}\n`);
        return false;
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}

async function end() {
  if (ending) return;
  ending = true;
  if (server === null || done) process.exit(0);
  const results = await Promise.all([...outstanding].map(cancelWithTries));
  process.exit(results.every(Boolean) ? 0 : 1);
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (server === null) {
    server = JSON.parse(line);
    process.stdout.write('armed\n');
  } else if (line === 'done') {
    done = true;
  } else if (line.startsWith('+')) {
    outstanding.add(Number(line.slice(1)));
  } else if (line.startsWith('-')) {
    outstanding.delete(Number(line.slice(1)));
  }
});
lines.on('close', () => void end());
// hintlab's Ctrl-C reaches its own process group, not this session;
// a signal sent here on purpose still cancels first.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => void end());
