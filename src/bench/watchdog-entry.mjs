// The restore watchdog for `hintlab bench --switch-file`: a separate process
// in its own session that outlives hintlab. It says `ready` as it starts
// (under `flock`, once it holds the locks); its first stdin line is JSON:
// {restores: [{path, value, base64?}], locks: [{path, record}]}: what each
// switched file must hold when the measurement ends (base64 = those bytes
// exactly, else value), and the lock files its `flock` parents hold, into
// which it writes each record (who switches the file) before it answers
// `armed`. (A bare list of restores is read as such, without locks.) A
// `done` line means hintlab restored the files itself: empty the records
// and exit. End of input without `done` means hintlab died (kill -9,
// crash): write every value back, empty the records if that worked, exit.
// Plain JavaScript, so it starts without a TypeScript loader.
import { constants, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

let restores = null;
let locks = [];
let done = false;
// never block on a FIFO or device, never create a file that vanished
const WRITE = constants.O_WRONLY | constants.O_TRUNC | constants.O_NONBLOCK | constants.O_NOCTTY;

function clearRecords() {
  for (const l of locks) {
    try {
      writeFileSync(l.path, '');
    } catch {
      // a record left behind is reported (and checked) by the next run
    }
  }
}

const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
lines.on('line', (line) => {
  if (restores === null) {
    const init = JSON.parse(line);
    restores = Array.isArray(init) ? init : init.restores;
    locks = Array.isArray(init) ? [] : init.locks ?? [];
    for (const l of locks) writeFileSync(l.path, `${JSON.stringify({ ...l.record, watchdog: process.pid })}\n`);
    process.stdout.write('armed\n');
  } else if (line === 'done') {
    done = true;
  }
});
lines.on('close', () => {
  if (restores === null) process.exit(0);
  if (done) {
    clearRecords();
    process.exit(0);
  }
  let failed = 0;
  for (const { path, value, base64 } of restores) {
    try {
      writeFileSync(path, base64 === undefined ? value : Buffer.from(base64, 'base64'), { flag: WRITE });
      const back = readFileSync(path, { flag: constants.O_RDONLY | constants.O_NONBLOCK }).subarray(0, 200).toString('utf8');
      process.stderr.write(`hintlab watchdog: hintlab ended without restoring ${path}; wrote back '${value.trim()}' (reads '${back.trim()}')\n`);
    } catch (err) {
      failed++;
      process.stderr.write(`hintlab watchdog: cannot restore ${path} to '${value}': ${err.message}; restore it by hand\n`);
    }
  }
  if (!failed) clearRecords();
  process.exit(failed ? 1 : 0);
});
// hintlab's Ctrl-C or SIGTERM reaches its own process group, not this session;
// a signal sent here on purpose still restores first.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => lines.close());
