/**
 * Does the README work as written? In a fresh clone of this checkout's
 * commit (in a scratch directory), run the README's set-up line, then every
 * line of its tour block, each exactly as written, with `hintlab` found on
 * PATH where the set-up put it. Prints a Markdown table (command, exit
 * status, wall time, last line of output) for docs/measured.md; progress on
 * stderr. Exits 1 when any line fails.
 *
 *   node --import tsx bench/readme-tour.ts            # set-up + tour
 *   node --import tsx bench/readme-tour.ts --trial    # and the trial block (15-60 min)
 *   node --import tsx bench/readme-tour.ts --twice    # the tour twice in a row on one database
 *   node --import tsx bench/readme-tour.ts --keep     # keep the scratch directory
 *
 * The blocks are found by the HTML comments before them (`<!-- set-up`,
 * `<!-- tour`, `<!-- trial`). Two settings keep the machine's own state
 * out of it without changing a command: npm's global prefix
 * (NPM_CONFIG_PREFIX, so `npm link` links into the scratch directory) and
 * XDG_DATA_HOME (so the default results database is a scratch one).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const args = new Set(process.argv.slice(2));

/** The lines of the ```sh block that follows the first `<!-- NAME` comment. */
export function block(readme: string, name: string): string[] {
  const at = readme.indexOf(`<!-- ${name}`);
  if (at < 0) throw new Error(`README.md has no <!-- ${name} ... --> block`);
  const fence = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!fence) throw new Error(`README.md: no \`\`\`sh block after <!-- ${name}`);
  return fence[1]!.split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
}

interface Outcome {
  line: string;
  status: number | null;
  seconds: number;
  last: string;
}

function sh(line: string, cwd: string, env: NodeJS.ProcessEnv): Outcome {
  process.stderr.write(`$ ${line}\n`);
  const start = process.hrtime.bigint();
  const r = spawnSync('bash', ['-c', line], { cwd, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const out = `${r.stdout || ''}${r.stderr || ''}`.trimEnd().split('\n');
  if (r.status !== 0) process.stderr.write(`${out.slice(-15).join('\n')}\n`);
  process.stderr.write(`  -> exit ${r.status ?? r.signal}, ${seconds.toFixed(1)} s\n`);
  return { line, status: r.status, seconds, last: out.at(-1)?.slice(0, 100) ?? '' };
}

function git(...a: string[]): string {
  return spawnSync('git', a, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
}

const commit = git('rev-parse', 'HEAD');
if (git('status', '--porcelain') !== '') process.stderr.write(`note: uncommitted changes are not in the clone (it checks out ${commit.slice(0, 12)})\n`);
const scratch = mkdtempSync(join(tmpdir(), 'hintlab-tour-'));
const clone = join(scratch, 'hintlab');
const prefix = join(scratch, 'npm-global');
mkdirSync(prefix);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NPM_CONFIG_PREFIX: prefix,
  PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
  XDG_DATA_HOME: join(scratch, 'data'),
  HINTLAB_DB: undefined,
  DEBIAN_FRONTEND: 'noninteractive',
};
delete env.HINTLAB_DB;

const outcomes: Outcome[] = [];
try {
  spawnSync('git', ['clone', '-q', '--no-checkout', ROOT, clone], { stdio: 'inherit' });
  spawnSync('git', ['-C', clone, 'checkout', '-q', commit], { stdio: 'inherit' });
  const readme = readFileSync(join(clone, 'README.md'), 'utf8');
  // the second tour reuses the labels A and B: its compare and report must take the second pair
  const tour = block(readme, 'tour');
  const lines = [...block(readme, 'set-up'), 'command -v hintlab', ...tour, ...(args.has('--twice') ? tour : []), ...(args.has('--trial') ? block(readme, 'trial') : [])];
  for (const line of lines) {
    const o = sh(line, clone, env);
    outcomes.push(o);
    if (o.status !== 0) break;
  }
} finally {
  if (!args.has('--keep')) rmSync(scratch, { recursive: true, force: true });
  else process.stderr.write(`kept ${scratch}\n`);
}

const cell = (s: string): string => s.replace(/\|/g, '\\|');
process.stdout.write(`README tour at ${commit.slice(0, 12)}, ${new Date().toISOString()}\n\n| command | exit | wall time | last line of output |\n|---|---|---|---|\n`);
for (const o of outcomes) process.stdout.write(`| \`${cell(o.line)}\` | ${o.status} | ${o.seconds.toFixed(1)} s | ${cell(o.last)} |\n`);
const failed = outcomes.some((o) => o.status !== 0);
process.exitCode = failed ? 1 : 0;
