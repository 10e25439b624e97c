/**
 * Trials (`hintlab trial`) as state in the database: the trial (its
 * request, output directory and status) and one row per step (build A,
 * build B, codegen, behave, vm): the key of what determines the step's
 * result, its state, the result and its wall time. Every change is
 * committed at once, so a trial stopped anywhere (a failing step, Ctrl-C,
 * kill -9) keeps every step it finished, and the next trial finds them by
 * step name and key.
 *
 * Results are JSON the trial module reads back with its own checks; this
 * table only keeps them.
 */
import type Database from 'better-sqlite3';
import { ownerTag } from './owner.ts';
import { type Guard, now, type OwnedRow, type OwnedState, type OwnedStatus, TableWithSteps } from './with-steps.ts';

export type TrialStatus = OwnedStatus;
/** `done`: computed by this trial; `reused`: taken from a stored result with the same key. */
export type TrialStepState = 'running' | 'done' | 'reused' | 'failed' | 'interrupted';

export interface TrialStepRecord {
  name: string;
  index: number;
  key: string | null;
  /** `running` only while its process lives; one left running by a dead process reads as `interrupted`. */
  state: TrialStepState;
  result: unknown;
  /** Wall time of the step in this trial (a reused step's check included). */
  seconds: number | null;
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface TrialRecord {
  id: number;
  outDir: string;
  request: unknown;
  status: TrialStatus;
  live: boolean;
  createdAt: string;
  finishedAt: string | null;
  error: string | null;
  command: string;
  steps: TrialStepRecord[];
}

/** A stored result found by its step and key. */
export interface StoredStepResult {
  trialId: number;
  result: unknown;
  seconds: number | null;
}

interface TrialRow extends OwnedRow {
  out_dir: string;
  request_json: string;
  created_at: string;
  finished_at: string | null;
  error: string | null;
  command: string;
}

interface StepRow {
  step: string;
  idx: number;
  key: string | null;
  state: TrialStepState;
  result_json: string | null;
  seconds: number | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface StepEnd {
  key: string | null;
  state: Exclude<TrialStepState, 'running'>;
  result: unknown;
  seconds: number;
  error: string | null;
}

export class TrialTable extends TableWithSteps<TrialRow, StepRow, TrialRecord> {
  constructor(db: Database.Database, guard: Guard, path: string) {
    super(db, guard, path, { table: 'trials', stepsTable: 'trial_steps', parentColumn: 'trial_id', noun: 'trial', redo: 'run the trial again (hintlab trial ...)' });
  }

  create(t: { outDir: string; request: unknown; command: string }): number {
    return this.guard(() => {
      const info = this.db
        .prepare(`INSERT INTO trials (out_dir, request_json, status, created_at, command, owner) VALUES (?, ?, 'running', ?, ?, ?)`)
        .run(t.outDir, JSON.stringify(t.request), now(), t.command, ownerTag(process.pid));
      return Number(info.lastInsertRowid);
    }, () => 'starting a trial');
  }

  finish(id: number, status: Exclude<TrialStatus, 'running'>, error: string | null): void {
    this.guard(() => this.db.prepare('UPDATE trials SET status = ?, finished_at = ?, error = ? WHERE id = ?').run(status, now(), error, id), () => `recording trial #${id}`);
  }

  stepStarted(id: number, name: string, index: number): void {
    this.guard(
      () => this.db.prepare(`INSERT OR REPLACE INTO trial_steps (trial_id, step, idx, state, started_at) VALUES (?, ?, ?, 'running', ?)`).run(id, name, index, now()),
      () => `recording step ${name} of trial #${id}`,
    );
  }

  stepFinished(id: number, name: string, end: StepEnd): void {
    this.guard(
      () =>
        this.db
          .prepare('UPDATE trial_steps SET key = ?, state = ?, result_json = ?, seconds = ?, error = ?, finished_at = ? WHERE trial_id = ? AND step = ?')
          .run(end.key, end.state, end.result === undefined ? null : JSON.stringify(end.result), end.seconds, end.error, now(), id, name),
      () => `recording step ${name} of trial #${id}`,
    );
  }

  /** The newest result of `step` with this key that a trial made (before any that only reused one), from any trial; null when there is none. */
  findResult(step: string, key: string): StoredStepResult | null {
    const row = this.guard(() =>
      this.db
        .prepare(`SELECT trial_id, result_json, seconds FROM trial_steps WHERE step = ? AND key = ? AND state IN ('done', 'reused') AND result_json IS NOT NULL ORDER BY state = 'done' DESC, trial_id DESC LIMIT 1`)
        .get(step, key),
    ) as { trial_id: number; result_json: string; seconds: number | null } | undefined;
    return row ? { trialId: row.trial_id, result: this.json(row.trial_id, 'result_json', row.result_json), seconds: row.seconds } : null;
  }

  protected record(r: TrialRow, steps: StepRow[], { status, live }: OwnedState): TrialRecord {
    return {
      id: r.id,
      outDir: r.out_dir,
      request: this.json(r.id, 'request_json', r.request_json),
      status,
      live,
      createdAt: r.created_at,
      finishedAt: r.finished_at,
      error: r.error,
      command: r.command,
      steps: steps.map((s) => ({
        name: s.step,
        index: s.idx,
        key: s.key,
        state: s.state === 'running' && !live ? 'interrupted' : s.state,
        result: this.json(r.id, `step ${s.step} result_json`, s.result_json),
        seconds: s.seconds,
        error: s.error,
        startedAt: s.started_at,
        finishedAt: s.finished_at,
      })),
    };
  }
}
