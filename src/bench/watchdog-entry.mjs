// The restore watchdog for `hintlab bench --switch-file`: a separate process
// in its own session that outlives hintlab. Its first stdin line is a JSON
// list of {path, value}: what each switched file must hold when the
// measurement ends. It answers `armed`, then waits. A `done` line means
// hintlab restored the files itself: exit without writing. End of input
// without `done` means hintlab died (kill -9, crash): write every value back
// and exit. Plain JavaScript, so it starts without a TypeScript loader.
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

let restores = null;
let done = false;
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (restores === null) {
    restores = JSON.parse(line);
    process.stdout.write('armed\n');
  } else if (line === 'done') {
    done = true;
  }
});
lines.on('close', () => {
  if (done || restores === null) process.exit(0);
  let failed = 0;
  for (const { path, value } of restores) {
    try {
      writeFileSync(path, value);
      const back = readFileSync(path, 'utf8');
      process.stderr.write(`hintlab watchdog: hintlab ended without restoring ${path}; wrote back '${value}' (reads '${back.trim()}')\n`);
    } catch (err) {
      failed++;
      process.stderr.write(`hintlab watchdog: cannot restore ${path} to '${value}': ${err.message}; restore it by hand\n`);
    }
  }
  process.exit(failed ? 1 : 0);
});
// hintlab's Ctrl-C or SIGTERM reaches its own process group, not this session;
// a signal sent here on purpose still restores first.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => lines.close());
