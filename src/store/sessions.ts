/**
 * Sessions on a box (`hintlab session`) as state in the database, so that
 * one interrupted anywhere (Ctrl-C, kill -9, a laptop closed, a box that
 * hung) resumes from its next step: the session (its plan, the kernel the
 * box started on, where the box was left) and one row per step of its boot
 * order (pending, booting, measuring, complete or failed; the run it
 * measured; its boot token and report). Every change is committed at once.
 *
 * The plan, home and boot reports are stored as JSON the session module
 * reads back with its own checks; this table only keeps them.
 */
import type Database from 'better-sqlite3';
import { ownerTag } from './owner.ts';
import { type Guard, now, type OwnedRow, type OwnedState, type OwnedStatus, TableWithSteps } from './with-steps.ts';

export type SessionStatus = OwnedStatus;
export type StepStatus = 'pending' | 'booting' | 'measuring' | 'complete' | 'failed';
/** Where a session left its box: on the kernel it started on, on a test kernel, or not known (it did not answer). */
export type BoxPlace = 'home' | 'away' | 'unknown';

export interface StepRecord {
  index: number;
  kernelLabel: string;
  bootIndex: number;
  runLabel: string;
  status: StepStatus;
  /** The run of the latest attempt, once it was created. */
  runId: number | null;
  attempts: number;
  token: string | null;
  boot: unknown;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface SessionRecord {
  id: number;
  target: string;
  /** `running` only while its process lives; one left running by a dead process reads back as `interrupted`. */
  status: SessionStatus;
  /** The process that runs it now, when `running`. */
  live: boolean;
  plan: unknown;
  home: unknown;
  box: BoxPlace | null;
  createdAt: string;
  finishedAt: string | null;
  error: string | null;
  command: string;
  steps: StepRecord[];
}

export interface NewStep {
  kernelLabel: string;
  bootIndex: number;
  runLabel: string;
}

interface SessionRow extends OwnedRow {
  target: string;
  plan_json: string;
  home_json: string | null;
  box: BoxPlace | null;
  created_at: string;
  finished_at: string | null;
  error: string | null;
  command: string;
}

interface StepRow {
  idx: number;
  kernel_label: string;
  boot_index: number;
  run_label: string;
  status: StepStatus;
  run_id: number | null;
  attempts: number;
  token: string | null;
  boot_json: string | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
}

export class SessionTable extends TableWithSteps<SessionRow, StepRow, SessionRecord> {
  constructor(db: Database.Database, guard: Guard, path: string) {
    super(db, guard, path, { table: 'sessions', stepsTable: 'session_steps', parentColumn: 'session_id', noun: 'session', redo: 'start the session again (hintlab session --target ...)' });
  }

  /** Create a session and its steps (labelled by `steps(id)`, which may use the new id). */
  create(s: { target: string; plan: unknown; command: string }, steps: (id: number) => NewStep[]): number {
    return this.guard(() =>
      this.db.transaction(() => {
        const info = this.db
          .prepare(`INSERT INTO sessions (target, status, plan_json, created_at, command, owner) VALUES (?, 'running', ?, ?, ?, ?)`)
          .run(s.target, JSON.stringify(s.plan), now(), s.command, ownerTag(process.pid));
        const id = Number(info.lastInsertRowid);
        const insert = this.db.prepare(`INSERT INTO session_steps (session_id, idx, kernel_label, boot_index, run_label, status) VALUES (?, ?, ?, ?, ?, 'pending')`);
        steps(id).forEach((step, i) => insert.run(id, i, step.kernelLabel, step.bootIndex, step.runLabel));
        return id;
      })(),
      () => 'starting a session',
    );
  }

  /** Take a session over for this process (a resume): running again, owned by this pid. */
  claim(id: number): void {
    this.update(id, `UPDATE sessions SET status = 'running', owner = ?, finished_at = NULL, error = NULL WHERE id = ?`, [ownerTag(process.pid), id]);
  }

  setHome(id: number, home: unknown): void {
    this.update(id, 'UPDATE sessions SET home_json = ? WHERE id = ?', [JSON.stringify(home), id]);
  }

  setBox(id: number, box: BoxPlace): void {
    this.update(id, 'UPDATE sessions SET box = ? WHERE id = ?', [box, id]);
  }

  finish(id: number, status: Exclude<SessionStatus, 'running'>, error: string | null): void {
    this.update(id, 'UPDATE sessions SET status = ?, finished_at = ?, error = ? WHERE id = ?', [status, now(), error, id]);
  }

  /** A step begins an attempt: booting, with a new token, no run yet. */
  stepStarted(id: number, index: number, token: string): void {
    this.update(id, `UPDATE session_steps SET status = 'booting', token = ?, attempts = attempts + 1, run_id = NULL, boot_json = NULL, error = NULL, started_at = ?, finished_at = NULL WHERE session_id = ? AND idx = ?`, [token, now(), id, index]);
  }

  stepBooted(id: number, index: number, boot: unknown): void {
    this.update(id, `UPDATE session_steps SET status = 'measuring', boot_json = ? WHERE session_id = ? AND idx = ?`, [JSON.stringify(boot), id, index]);
  }

  stepRun(id: number, index: number, runId: number): void {
    this.update(id, 'UPDATE session_steps SET run_id = ? WHERE session_id = ? AND idx = ?', [runId, id, index]);
  }

  stepFinished(id: number, index: number, status: 'complete' | 'failed', error: string | null): void {
    this.update(id, 'UPDATE session_steps SET status = ?, error = ?, finished_at = ? WHERE session_id = ? AND idx = ?', [status, error, now(), id, index]);
  }

  private update(id: number, sql: string, args: unknown[]): void {
    this.guard(() => this.db.prepare(sql).run(...args), () => `recording session #${id}`);
  }

  protected record(r: SessionRow, steps: StepRow[], { status, live }: OwnedState): SessionRecord {
    return {
      id: r.id,
      target: r.target,
      status,
      live,
      plan: this.json(r.id, 'plan_json', r.plan_json),
      home: this.json(r.id, 'home_json', r.home_json),
      box: r.box,
      createdAt: r.created_at,
      finishedAt: r.finished_at,
      error: r.error,
      command: r.command,
      steps: steps.map((s) => ({
        index: s.idx,
        kernelLabel: s.kernel_label,
        bootIndex: s.boot_index,
        runLabel: s.run_label,
        status: s.status,
        runId: s.run_id,
        attempts: s.attempts,
        token: s.token,
        boot: this.json(r.id, `step ${s.idx} boot_json`, s.boot_json),
        error: s.error,
        startedAt: s.started_at,
        finishedAt: s.finished_at,
      })),
    };
  }
}
