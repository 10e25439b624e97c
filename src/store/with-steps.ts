/**
 * What the sessions and the trials tables share: a record owned by the
 * process that runs it, with one row per step in a table of its own. Both
 * are read back the same way: the record with its steps in step order, a
 * record left `running` by a process that died read as `interrupted`, and
 * a damaged JSON column told naming the database, the record and the column.
 */
import type Database from 'better-sqlite3';
import { UserError } from '../errors.ts';
import { ownerAlive } from './owner.ts';

/** Runs one statement group; the Store's guard turns SQLite failures into StoreErrors. */
export type Guard = <T>(fn: () => T, during?: () => string) => T;

/** Now, as stored in every time column. */
export const now = (): string => new Date().toISOString();

/** A record's status: `running` only while its process lives; one left running by a dead process reads back as `interrupted`. */
export type OwnedStatus = 'running' | 'complete' | 'failed' | 'interrupted';

/** The columns every owned record has. */
export interface OwnedRow {
  id: number;
  status: OwnedStatus;
  /** Boot id and pid of the process that runs it (./owner.ts). */
  owner: string;
}

/** A record's state as read back: its status, and whether the process that runs it lives. */
export interface OwnedState {
  status: OwnedStatus;
  live: boolean;
}

/** Where a kind of record and its steps are stored, and what its damaged-record message tells the user to do. */
export interface StepsTableSpec {
  table: 'sessions' | 'trials';
  stepsTable: 'session_steps' | 'trial_steps';
  /** The steps table's column naming its record. */
  parentColumn: 'session_id' | 'trial_id';
  noun: 'session' | 'trial';
  /** What to do about a damaged record, e.g. 'start the session again (hintlab session --target ...)'. */
  redo: string;
}

/** A table of owned records with their steps; `record` turns one row and its step rows into the record callers see. */
export abstract class TableWithSteps<Row extends OwnedRow, StepRow, Rec> {
  constructor(
    protected readonly db: Database.Database,
    protected readonly guard: Guard,
    private readonly path: string,
    private readonly spec: StepsTableSpec,
  ) {}

  /** The record, or null. */
  get(id: number): Rec | null {
    const row = this.guard(() => this.db.prepare(`SELECT * FROM ${this.spec.table} WHERE id = ?`).get(id) as Row | undefined);
    return row ? this.read(row) : null;
  }

  /** Every record, oldest first. */
  list(): Rec[] {
    const rows = this.guard(() => this.db.prepare(`SELECT * FROM ${this.spec.table} ORDER BY id`).all() as Row[]);
    return rows.map((r) => this.read(r));
  }

  protected abstract record(row: Row, steps: StepRow[], state: OwnedState): Rec;

  /** A JSON column of record `id` (null stays null); a damaged one is a UserError naming the database, the record and the column. */
  protected json(id: number, column: string, text: string | null): unknown {
    if (text === null) return null;
    try {
      return JSON.parse(text);
    } catch (err) {
      const { noun, redo } = this.spec;
      throw new UserError(`results database ${this.path}: ${noun} #${id} is damaged: its ${column} is not JSON (${(err as Error).message}); ${redo}, or restore the database from a backup`);
    }
  }

  private read(row: Row): Rec {
    const { stepsTable, parentColumn } = this.spec;
    const steps = this.guard(() => this.db.prepare(`SELECT * FROM ${stepsTable} WHERE ${parentColumn} = ? ORDER BY idx`).all(row.id) as StepRow[]);
    const live = row.status === 'running' && ownerAlive(row.owner);
    return this.record(row, steps, { live, status: row.status === 'running' && !live ? 'interrupted' : row.status });
  }
}
