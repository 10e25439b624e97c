/**
 * The database schema and its migrations.
 *
 * Format history (bump SCHEMA_VERSION and append a migration, never edit one):
 *   1 - runs, rounds, round_metrics.
 *   2 - units of replication: `runs.replicate_unit` (process, boot or
 *       invocation) and `rounds.replicate` (0-based index of the unit within
 *       its run). Both are NULL for runs recorded at schema 1: their rounds
 *       read back as one unit per run (see src/store/store.ts).
 *   3 - sessions on a box (`hintlab session`): `sessions` (the plan, the
 *       kernel the box started on, status, where the box was left) and
 *       `session_steps` (one row per boot of the order: its state, the run
 *       it measured, its boot token and report). Runs are unchanged.
 *   4 - behaviour traces (`hintlab behave`): `behave_traces`, one per kernel
 *       image, scenario plan, runner build and guest conditions (its key is
 *       a hash of them), and `behave_comparisons` of two traces. No run or
 *       round changes.
 *   5 - trials (`hintlab trial`): `trials` (the request, its output
 *       directory, status) and `trial_steps`, one row per step of a trial
 *       (build A, build B, codegen, behave, vm; with --debug-checks the
 *       debug builds): the key of what determines its result, its state
 *       (done, reused, failed, interrupted), the result as JSON and its
 *       wall time. A later trial finds a step's result by step and key.
 *       Runs and rounds are unchanged.
 *
 * `PRAGMA user_version` holds the schema version. A database written by a
 * newer hintlab is refused rather than guessed at.
 */
import type Database from 'better-sqlite3';

export const SCHEMA_VERSION = 5;

const MIGRATIONS: readonly string[] = [
  // 0 -> 1
  `
  CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    label TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('bench', 'vm', 'macro')),
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed')),
    unit TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    error TEXT,
    command TEXT NOT NULL,
    hintlab_version TEXT NOT NULL,
    params_json TEXT NOT NULL,
    env_json TEXT NOT NULL,
    -- boot id and pid of the writing process: tells a live run from a dead one
    owner TEXT NOT NULL
  );
  CREATE INDEX runs_label ON runs(label);
  CREATE TABLE rounds (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    subject TEXT NOT NULL,
    idx INTEGER NOT NULL,
    warmup INTEGER NOT NULL CHECK (warmup IN (0, 1)),
    ops INTEGER NOT NULL CHECK (ops > 0),
    total REAL NOT NULL,
    value REAL NOT NULL,
    unit TEXT NOT NULL,
    direction TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
  );
  CREATE TABLE round_metrics (
    run_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    value REAL NOT NULL,
    unit TEXT NOT NULL,
    direction TEXT NOT NULL,
    PRIMARY KEY (run_id, seq, name),
    FOREIGN KEY (run_id, seq) REFERENCES rounds(run_id, seq) ON DELETE CASCADE
  );
  `,
  // 1 -> 2
  `
  ALTER TABLE runs ADD COLUMN replicate_unit TEXT CHECK (replicate_unit IN ('process', 'boot', 'invocation'));
  ALTER TABLE rounds ADD COLUMN replicate INTEGER CHECK (replicate >= 0);
  `,
  // 2 -> 3
  `
  CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    target TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
    plan_json TEXT NOT NULL,
    -- the kernel the box started on, recorded once: where it must end
    home_json TEXT,
    -- where the box was left: on its home kernel, away on a test kernel, or not known
    box TEXT CHECK (box IN ('home', 'away', 'unknown')),
    created_at TEXT NOT NULL,
    finished_at TEXT,
    error TEXT,
    command TEXT NOT NULL,
    owner TEXT NOT NULL
  );
  CREATE TABLE session_steps (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL CHECK (idx >= 0),
    kernel_label TEXT NOT NULL,
    boot_index INTEGER NOT NULL CHECK (boot_index >= 1),
    run_label TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'booting', 'measuring', 'complete', 'failed')),
    run_id INTEGER REFERENCES runs(id),
    attempts INTEGER NOT NULL DEFAULT 0,
    token TEXT,
    boot_json TEXT,
    error TEXT,
    started_at TEXT,
    finished_at TEXT,
    PRIMARY KEY (session_id, idx)
  );
  `,
  // 3 -> 4
  `
  CREATE TABLE behave_traces (
    key TEXT PRIMARY KEY,
    kernel_sha256 TEXT NOT NULL,
    plan_sha256 TEXT NOT NULL,
    runner_build TEXT NOT NULL,
    icount INTEGER NOT NULL CHECK (icount IN (0, 1)),
    kernel_release TEXT,
    boot_seconds REAL,
    trace_json TEXT NOT NULL,
    hintlab_version TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE behave_comparisons (
    key TEXT PRIMARY KEY,
    a_trace TEXT NOT NULL REFERENCES behave_traces(key),
    b_trace TEXT NOT NULL REFERENCES behave_traces(key),
    document_json TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  `,
  // 4 -> 5
  `
  CREATE TABLE trials (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    out_dir TEXT NOT NULL,
    request_json TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),
    created_at TEXT NOT NULL,
    finished_at TEXT,
    error TEXT,
    command TEXT NOT NULL,
    owner TEXT NOT NULL
  );
  CREATE TABLE trial_steps (
    trial_id INTEGER NOT NULL REFERENCES trials(id) ON DELETE CASCADE,
    step TEXT NOT NULL,
    idx INTEGER NOT NULL CHECK (idx >= 0),
    -- what determines the result (a hash); NULL until known, or when the step failed first
    key TEXT,
    state TEXT NOT NULL CHECK (state IN ('running', 'done', 'reused', 'failed', 'interrupted')),
    result_json TEXT,
    seconds REAL,
    error TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    PRIMARY KEY (trial_id, step)
  );
  CREATE INDEX trial_steps_key ON trial_steps(step, key);
  `,
];

/**
 * Bring `db` up to SCHEMA_VERSION, or throw when it is newer than we know.
 *
 * Several hintlab processes may open one new database at once: the
 * migrations run in one IMMEDIATE transaction (the write lock taken at
 * BEGIN, waiting out the connection's busy_timeout for another migrating
 * process), and the version is read again inside it, so whoever comes
 * second finds the schema made and applies nothing.
 */
export function migrate(db: Database.Database, path: string): void {
  const version = (): number => db.pragma('user_version', { simple: true }) as number;
  const upgrade = db.transaction(() => {
    const current = version();
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `${path}: database schema version ${current} is newer than this hintlab understands ` +
          `(${SCHEMA_VERSION}). Upgrade hintlab, or pass --db with another file.`,
      );
    }
    for (let v = current; v < SCHEMA_VERSION; v++) {
      const step = MIGRATIONS[v];
      if (step === undefined) throw new Error(`internal: no migration from schema ${v}`);
      db.exec(step);
      db.pragma(`user_version = ${v + 1}`);
    }
  });
  // an up-to-date database is not locked for writing: readers open it side by side
  if (version() !== SCHEMA_VERSION) upgrade.immediate();
}
