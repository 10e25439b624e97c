/**
 * The results database: SQLite through better-sqlite3, WAL mode.
 *
 * Invariant: every round is committed in its own transaction the moment
 * `addRound` returns, so a crash, kill -9 or reboot loses at most the round
 * in flight. A run whose process died while `running` reads back as
 * `incomplete`; its committed rounds stay intact and visible.
 */
import type Database from 'better-sqlite3';
import type {
  Direction,
  Environment,
  Metric,
  ReplicateUnit,
  Round,
  Run,
  RunKind,
  RunParams,
  RunStatus,
  RunWithRounds,
  Unit,
} from '../model.ts';
import type { EnvironmentPatch, RunEnvironment } from '../environment/record.ts';
import { readRunExtra, type RunExtra } from '../run-record.ts';
import { describeStoreFailure, isDiskFull, openDatabase } from './open.ts';
import { isSqliteError } from './sqlite.ts';
import { describeFilesystem } from './filesystem.ts';
import { UserError } from '../errors.ts';
import { ownerAlive, ownerTag } from './owner.ts';
import { SessionTable } from './sessions.ts';
import { TrialTable } from './trials.ts';
import { BehaveTable } from './behave.ts';
import { DatabaseGone, DatabaseWatch } from './watch.ts';

/** What a caller supplies to start a run. */
export interface NewRun {
  label: string | null;
  kind: RunKind;
  unit: Unit;
  /** What each round's `replicate` counts: probe processes, boots or stress-ng invocations. */
  replicateUnit: ReplicateUnit;
  command: string;
  hintlabVersion: string;
  params: RunParams;
  /** The record of src/environment/ (a bare object only in tests of the store itself). */
  environment: RunEnvironment | Environment;
}

/** A round as the measuring code hands it over; the store stamps the time. */
export type NewRound = Omit<Round, 'recordedAt' | 'metrics'> & { metrics?: Metric[] };

interface RunRow {
  id: number;
  label: string | null;
  kind: RunKind;
  status: 'running' | 'complete' | 'failed';
  unit: Unit;
  replicate_unit: ReplicateUnit | null;
  started_at: string;
  finished_at: string | null;
  error: string | null;
  command: string;
  hintlab_version: string;
  params_json: string;
  env_json: string;
  owner: string;
}

interface RoundRow {
  seq: number;
  subject: string;
  idx: number;
  replicate: number | null;
  warmup: number;
  ops: number;
  total: number;
  value: number;
  unit: Unit;
  direction: Direction;
  recorded_at: string;
}

/** Raised when a run reference names nothing in the database. */
export class RunNotFoundError extends Error {}

/**
 * A read or write of the database that SQLite refused (disk full, I/O
 * error, corruption), told as "disk full while storing round N of run #ID
 * (label): free space on /mount (fs)" or "results database PATH: cause".
 */
export class StoreError extends UserError {
  constructor(
    readonly path: string,
    override readonly cause: unknown,
    readonly during: string | null,
    extra: { after?: string } = {},
  ) {
    const what = isDiskFull(cause) && during
      ? `disk full while ${during}: free space on ${describeFilesystem(path)}`
      : `results database ${path}: ${describeStoreFailure(path, cause)}${during ? ` (while ${during})` : ''}`;
    super(extra.after ? `${what}\n${extra.after}` : what, during ? 1 : 2);
  }
}

export class Store {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly watch: DatabaseWatch | null;
  private constructor(path: string, db: Database.Database) {
    this.path = path;
    this.db = db;
    this.watch = DatabaseWatch.start(path);
  }

  /** Open (creating if needed) the database at `path`; `:memory:` works for tests. */
  static open(path: string): Store {
    return new Store(path, openDatabase(path, { create: true }));
  }

  /** Open an existing database for a command that only reads; a missing one is a user error, never created. */
  static openExisting(path: string): Store {
    return new Store(path, openDatabase(path, { create: false }));
  }

  close(): void {
    // a database found unwritable is not checkpointed: that write could fault (SIGBUS)
    if (this.watch?.tripped) return;
    this.db.close();
    this.watch?.close();
  }

  private sessionTable: SessionTable | null = null;
  private trialTable: TrialTable | null = null;
  private behaveTable: BehaveTable | null = null;

  /** Behaviour traces (`hintlab behave`) and their comparisons. */
  get behave(): BehaveTable {
    return (this.behaveTable ??= new BehaveTable(this.db, (fn, during) => this.guard(fn, during)));
  }

  /** The trials (`hintlab trial`) and their steps. */
  get trials(): TrialTable {
    return (this.trialTable ??= new TrialTable(this.db, (fn, during) => this.guard(fn, during), this.path));
  }

  /** The sessions on boxes (`hintlab session`) and their steps. */
  get sessions(): SessionTable {
    return (this.sessionTable ??= new SessionTable(this.db, (fn, during) => this.guard(fn, during), this.path));
  }

  /**
   * Run one statement group. SQLite's failures (disk full, I/O error,
   * corruption) become a StoreError naming the file, the cause and the fix;
   * `during` says what was being written.
   */
  private guard<T>(fn: () => T, during?: () => string): T {
    try {
      this.watch?.check();
      const result = fn();
      this.watch?.check();
      return result;
    } catch (err) {
      if (!isSqliteError(err) && !(err instanceof DatabaseGone)) throw err;
      throw new StoreError(this.path, err, during?.() ?? null);
    }
  }

  private describeRun(runId: number): string {
    // a database found unwritable is not read again: a read writes SQLite's shared memory too
    if (this.watch?.tripped) return `run #${runId}`;
    try {
      const row = this.db.prepare('SELECT label FROM runs WHERE id = ?').get(runId) as { label: string | null } | undefined;
      return `run #${runId}${row?.label ? ` (${row.label})` : ''}`;
    } catch {
      return `run #${runId}`;
    }
  }

  createRun(run: NewRun): number {
    return this.guard(() => {
      const info = this.db
        .prepare(
          `INSERT INTO runs (label, kind, status, unit, replicate_unit, started_at, command, hintlab_version, params_json, env_json, owner)
           VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          run.label,
          run.kind,
          run.unit,
          run.replicateUnit,
          new Date().toISOString(),
          run.command,
          run.hintlabVersion,
          JSON.stringify(run.params),
          JSON.stringify(run.environment),
          ownerTag(process.pid),
        );
      return Number(info.lastInsertRowid);
    }, () => `starting a ${run.kind} run${run.label ? ` (${run.label})` : ''}`);
  }

  /** Commit one round (and its metrics) at once; a failure (e.g. disk full) is a StoreError naming the round and run. */
  addRound(runId: number, round: NewRound): void {
    this.guard(() => {
      const insertRound = this.db.prepare(
        `INSERT INTO rounds (run_id, seq, subject, idx, replicate, warmup, ops, total, value, unit, direction, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const insertMetric = this.db.prepare(
        `INSERT INTO round_metrics (run_id, seq, name, value, unit, direction) VALUES (?, ?, ?, ?, ?, ?)`,
      );
      this.db.transaction(() => {
        insertRound.run(
          runId,
          round.seq,
          round.subject,
          round.index,
          round.replicate,
          round.warmup ? 1 : 0,
          round.ops,
          round.total,
          round.value,
          round.unit,
          round.direction,
          new Date().toISOString(),
        );
        for (const m of round.metrics ?? []) {
          insertMetric.run(runId, round.seq, m.name, m.value, m.unit, m.direction);
        }
      })();
    }, () => `storing round ${round.seq + 1} of ${this.describeRun(runId)}`);
  }

  /** Add metrics to stored rounds, all in one transaction (a boot's cost counters, read after the boot). */
  addMetrics(runId: number, rows: { seq: number; metrics: Metric[] }[]): void {
    this.guard(() => {
      const insert = this.db.prepare(`INSERT INTO round_metrics (run_id, seq, name, value, unit, direction) VALUES (?, ?, ?, ?, ?, ?)`);
      this.db.transaction(() => {
        for (const r of rows) for (const m of r.metrics) insert.run(runId, r.seq, m.name, m.value, m.unit, m.direction);
      })();
    }, () => `storing the cost counters of ${this.describeRun(runId)}`);
  }

  /** Merge more facts into a run's environment (e.g. load average at the end). */
  updateEnvironment(runId: number, patch: EnvironmentPatch): void {
    const row = this.guard(() => this.db.prepare('SELECT env_json FROM runs WHERE id = ?').get(runId)) as
      | { env_json: string }
      | undefined;
    if (!row) throw new RunNotFoundError(`run ${runId} does not exist`);
    const env = { ...(JSON.parse(row.env_json) as Environment), ...patch };
    this.guard(
      () => this.db.prepare('UPDATE runs SET env_json = ? WHERE id = ?').run(JSON.stringify(env), runId),
      () => `recording the environment of ${this.describeRun(runId)}`,
    );
  }

  /** Merge more parameters into one subject's `params.subjectParams` (e.g. what the probe reported when it prepared it). */
  mergeSubjectParams(runId: number, subject: string, patch: Record<string, unknown>): void {
    const row = this.guard(() => this.db.prepare('SELECT params_json FROM runs WHERE id = ?').get(runId)) as { params_json: string } | undefined;
    if (!row) throw new RunNotFoundError(`run ${runId} does not exist`);
    const params = JSON.parse(row.params_json) as RunParams;
    params.subjectParams = { ...params.subjectParams, [subject]: { ...params.subjectParams[subject], ...patch } };
    this.guard(
      () => this.db.prepare('UPDATE runs SET params_json = ? WHERE id = ?').run(JSON.stringify(params), runId),
      () => `recording the probe's parameters of ${subject} in ${this.describeRun(runId)}`,
    );
  }

  /** Merge more facts into a run's `params.extra` (what a budgeted design learnt by the end: its order, its stopping). */
  mergeParamsExtra(runId: number, patch: RunExtra): void {
    const row = this.guard(() => this.db.prepare('SELECT params_json FROM runs WHERE id = ?').get(runId)) as { params_json: string } | undefined;
    if (!row) throw new RunNotFoundError(`run ${runId} does not exist`);
    const params = JSON.parse(row.params_json) as RunParams;
    params.extra = { ...params.extra, ...patch };
    this.guard(
      () => this.db.prepare('UPDATE runs SET params_json = ? WHERE id = ?').run(JSON.stringify(params), runId),
      () => `recording how ${this.describeRun(runId)} was measured`,
    );
  }

  /** Mark a run finished. Only `complete` runs take part in comparisons by default. */
  finishRun(runId: number, status: 'complete' | 'failed', error: string | null = null): void {
    this.guard(
      () => this.db.prepare('UPDATE runs SET status = ?, finished_at = ?, error = ? WHERE id = ?').run(status, new Date().toISOString(), error, runId),
      () => `marking ${this.describeRun(runId)} ${status}`,
    );
  }

  /**
   * After a write failed in the middle of a run: mark the run failed if the
   * database still takes that write, then throw the failure saying what
   * became of the run. The rounds committed before stay either way.
   */
  abandonRun(runId: number, failure: StoreError): never {
    // a database deleted or unwritable is not written (nor read) again
    if (this.watch?.tripped) throw failure;
    let marked = true;
    try {
      this.finishRun(runId, 'failed', failure.message);
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      marked = false;
    }
    const kept = this.guard(() => this.db.prepare('SELECT COUNT(*) AS n FROM rounds WHERE run_id = ? AND warmup = 0').get(runId) as { n: number }).n;
    throw new StoreError(this.path, failure.cause, failure.during, {
      after: `${this.describeRun(runId)} keeps its ${kept} committed measured rounds and is ${marked ? 'marked failed' : 'left incomplete (marking it failed needed space too)'}`,
    });
  }

  /** All runs, oldest first. */
  listRuns(): Run[] {
    const rows = this.guard(() => this.db.prepare('SELECT * FROM runs ORDER BY id').all() as RunRow[]);
    return rows.map((r) => this.toRun(r));
  }

  /** Round counts per run and subject (measured rounds only). */
  roundCounts(runId: number): Map<string, number> {
    const rows = this.guard(() => this.db
      .prepare('SELECT subject, COUNT(*) AS n FROM rounds WHERE run_id = ? AND warmup = 0 GROUP BY subject')
      .all(runId) as { subject: string; n: number }[]);
    return new Map(rows.map((r) => [r.subject, r.n]));
  }

  getRun(id: number): RunWithRounds {
    const row = this.guard(() => this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined);
    if (!row) throw new RunNotFoundError(`run ${id} does not exist in ${this.path}; list runs with 'hintlab runs'`);
    return { ...this.toRun(row), rounds: this.guard(() => this.readRounds(id)) };
  }

  /** The runs carrying `label`, newest first (without their rounds): a label may name several runs. */
  runsLabelled(label: string): Run[] {
    const rows = this.guard(() => this.db.prepare('SELECT * FROM runs WHERE label = ? ORDER BY id DESC').all(label) as RunRow[]);
    return rows.map((r) => this.toRun(r));
  }

  /**
   * Resolve a user's run reference: a numeric id, or a label (the newest run
   * with that label). `#12` is accepted as an id too.
   */
  resolveRun(ref: string): RunWithRounds {
    const idText = ref.startsWith('#') ? ref.slice(1) : ref;
    if (/^\d+$/.test(idText)) {
      const row = this.guard(() => this.db.prepare('SELECT id FROM runs WHERE id = ?').get(Number(idText))) as
        | { id: number }
        | undefined;
      if (row) return this.getRun(row.id);
      if (ref.startsWith('#')) throw new RunNotFoundError(`no run with id ${idText} in ${this.path}; list runs with 'hintlab runs'`);
    }
    const row = this.guard(() => this.db.prepare('SELECT id FROM runs WHERE label = ? ORDER BY id DESC LIMIT 1').get(ref)) as
      | { id: number }
      | undefined;
    if (!row) {
      throw new RunNotFoundError(
        `no run with id or label '${ref}' in ${this.path}; list runs with 'hintlab runs'`,
      );
    }
    return this.getRun(row.id);
  }

  private readRounds(runId: number): Round[] {
    const rows = this.db
      .prepare('SELECT * FROM rounds WHERE run_id = ? ORDER BY seq')
      .all(runId) as RoundRow[];
    const metricRows = this.db
      .prepare('SELECT seq, name, value, unit, direction FROM round_metrics WHERE run_id = ? ORDER BY seq, name')
      .all(runId) as (Metric & { seq: number })[];
    const metrics = new Map<number, Metric[]>();
    for (const m of metricRows) {
      const list = metrics.get(m.seq) ?? [];
      list.push({ name: m.name, value: m.value, unit: m.unit, direction: m.direction });
      metrics.set(m.seq, list);
    }
    return rows.map((r) => ({
      seq: r.seq,
      subject: r.subject,
      index: r.idx,
      // schema-1 rounds have no unit recorded: the whole run is one unit
      replicate: r.replicate ?? 0,
      warmup: r.warmup === 1,
      ops: r.ops,
      total: r.total,
      value: r.value,
      unit: r.unit,
      direction: r.direction,
      recordedAt: r.recorded_at,
      metrics: metrics.get(r.seq) ?? [],
    }));
  }

  private toRun(r: RunRow): Run {
    const status: RunStatus = r.status === 'running' && !ownerAlive(r.owner) ? 'incomplete' : r.status;
    return {
      id: r.id,
      label: r.label,
      kind: r.kind,
      status,
      unit: r.unit,
      replicateUnit:
        r.replicate_unit === null
          ? { known: false, reason: 'recorded before units of replication were stored (schema 1); the whole run counts as one unit' }
          : { known: true, value: r.replicate_unit },
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      error: r.error,
      command: r.command,
      hintlabVersion: r.hintlab_version,
      params: this.readParams(r),
      environment: JSON.parse(r.env_json) as Environment,
    };
  }

  /** A run's stored parameters, their `extra` checked by readRunExtra (a damaged one names the database and the run). */
  private readParams(r: RunRow): RunParams {
    const params = JSON.parse(r.params_json) as RunParams;
    return { ...params, extra: readRunExtra(params.extra, `results database ${this.path}: run #${r.id}${r.label ? ` (${r.label})` : ''}`) };
  }
}
