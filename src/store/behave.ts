/**
 * Behaviour traces (schema 4): each kernel's trace under the key of what
 * determines it (image, scenario plan, runner build, guest conditions), so
 * a rerun boots nothing, and the comparison of two stored traces.
 */
import type Database from 'better-sqlite3';
import type { Guard } from './with-steps.ts';

/** A behaviour trace as stored: the trace itself is JSON the behave module reads back. */
export interface StoredBehaveTrace {
  traceJson: string;
  kernelRelease: string | null;
  bootSeconds: number | null;
}

export interface NewBehaveTrace extends StoredBehaveTrace {
  key: string;
  kernelSha256: string;
  planSha256: string;
  runnerBuild: string;
  icount: boolean;
  hintlabVersion: string;
}

export class BehaveTable {
  constructor(
    private readonly db: Database.Database,
    private readonly guard: Guard,
  ) {}

  /** A stored behaviour trace by its key (src/behave/run.ts), or null. */
  getTrace(key: string): StoredBehaveTrace | null {
    const row = this.guard(() => this.db.prepare('SELECT trace_json, kernel_release, boot_seconds FROM behave_traces WHERE key = ?').get(key)) as
      | { trace_json: string; kernel_release: string | null; boot_seconds: number | null }
      | undefined;
    return row ? { traceJson: row.trace_json, kernelRelease: row.kernel_release, bootSeconds: row.boot_seconds } : null;
  }

  /** Store (or replace) a behaviour trace under what determines it. */
  putTrace(t: NewBehaveTrace): void {
    this.guard(() => {
      this.db
        .prepare(
          `INSERT OR REPLACE INTO behave_traces (key, kernel_sha256, plan_sha256, runner_build, icount, kernel_release, boot_seconds, trace_json, hintlab_version, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(t.key, t.kernelSha256, t.planSha256, t.runnerBuild, t.icount ? 1 : 0, t.kernelRelease, t.bootSeconds, t.traceJson, t.hintlabVersion, new Date().toISOString());
    }, () => 'storing a behaviour trace');
  }

  /** Store (or replace) the comparison of two stored traces. */
  putComparison(key: string, aTrace: string, bTrace: string, documentJson: string): void {
    this.guard(() => {
      this.db
        .prepare('INSERT OR REPLACE INTO behave_comparisons (key, a_trace, b_trace, document_json, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(key, aTrace, bTrace, documentJson, new Date().toISOString());
    }, () => 'storing a behaviour comparison');
  }
}
