/**
 * The text `hintlab session` prints, as snapshots of hand-built sessions:
 * each boot's line, the progress lines of every event, the compare command
 * and the list of sessions. The reporters' bytes must not change when they
 * move.
 */
import { test } from 'node:test';
import { sessionEvents } from '../../src/cli/session-report.ts';
import { bootLine, sessionCompareLine, sessionHeadLine, sessionList } from '../../src/report/session.ts';
import type { CliIO } from '../../src/cli/io.ts';
import type { SessionKernel } from '../../src/session/plan.ts';
import type { SessionBox } from '../../src/session/runner.ts';
import type { SessionRecord, StepRecord } from '../../src/store/sessions.ts';
import type { BootReport } from '../../src/targets/target.ts';
import { assertSnapshot } from './snapshot.ts';

const report = (over: Partial<BootReport> = {}): BootReport => ({
  method: 'kexec',
  command: 'kexec -e',
  fellBack: null,
  release: '6.12.9-hintlab-b',
  cmdline: 'console=ttyS0 hintlab.boot=3f2a',
  bootId: 'b00t',
  copyMs: 0,
  waitedMs: 23456,
  downAfterMs: 1230,
  attempts: 3,
  watchdogSeconds: 900,
  ...over,
});

function step(index: number, kernelLabel: string, bootIndex: number, status: StepRecord['status']): StepRecord {
  return { index, kernelLabel, bootIndex, runLabel: `s1-${kernelLabel}${bootIndex}`, status, runId: status === 'complete' ? 10 + index : null, attempts: 1, token: null, boot: null, error: null, startedAt: null, finishedAt: null };
}

function session(id: number, order: readonly string[], status: SessionRecord['status'], box: SessionRecord['box'], done: number): SessionRecord {
  const seen = new Map<string, number>();
  const steps = order.map((k, i) => {
    seen.set(k, (seen.get(k) ?? 0) + 1);
    return step(i, k, seen.get(k)!, i < done ? 'complete' : 'pending');
  });
  return { id, target: 'ssh://lab@box1', status, live: false, plan: null, home: null, box, createdAt: '2026-12-01T10:00:00.000Z', finishedAt: null, error: null, command: 'hintlab session', steps };
}

test('a boot line says how long the box took, when it went down, what it runs, a fallback and the watchdog', () => {
  const lines = [
    bootLine(report()),
    bootLine(report({ copyMs: 4321, downAfterMs: null, attempts: 1, fellBack: 'kexec_load failed: Operation not permitted', command: 'systemctl reboot', watchdogSeconds: null })),
  ];
  assertSnapshot('session-boot-lines', `${lines.join('\n')}\n`);
});

test('every session event prints its line: the box, each step start, boot, end or failure, and the way home', () => {
  let text = '';
  const io = { stderr: (t: string) => void (text += t), stdout: (t: string) => void (text += `[stdout] ${t}`) } as unknown as CliIO;
  const bar = { update: (d: number, t: number, label: string) => void (text += `[bar ${d}/${t} ${label}]\n`), clear: () => {} };
  const ev = sessionEvents(io, bar, () => 4);
  const home = { release: '6.1.0-28-amd64', version: '#1', cmdline: 'ro', bootId: 'h', hostname: 'box1', bootImage: '/boot/vmlinuz-6.1.0-28-amd64', bootInitrd: null };
  const box = { name: 'box1', home, facts: { release: '6.1.0-28-amd64', cmdline: 'BOOT_IMAGE=/vmlinuz ro quiet' } } as unknown as SessionBox;
  const noKexec = { ...box, name: 'box2', home: { ...home, bootImage: null } } as unknown as SessionBox;
  const kernel = { label: 'B', release: '6.12.9-hintlab-b' } as SessionKernel;
  const s = step(1, 'B', 1, 'measuring');
  ev.onBox?.(box, false);
  ev.onBox?.(noKexec, true);
  ev.onStepStart?.(s, kernel, 4);
  ev.onBooted?.(s, report());
  ev.onBooted?.(s, report({ cmdline: 'console=ttyS0' }));
  ev.onRound?.(s, 3, 10, 'getppid');
  ev.onStepEnd?.(s, { state: 'complete', runId: 12, seconds: 61.04, warnings: ['virtualized: kvm', 'load average 2.1'] });
  ev.onStepEnd?.(s, { state: 'failed', runId: null, reason: 'probe exited with status 1\nstderr: EPERM' });
  ev.onReturnStart?.(box);
  ev.onReturned?.({ state: 'home', report: report({ release: '6.1.0-28-amd64', watchdogSeconds: null }) });
  ev.onReturned?.({ state: 'home', report: null });
  ev.onReturned?.({ state: 'kept', release: '6.12.9-hintlab-b' });
  ev.onReturned?.({ state: 'failed', reason: 'ssh: connection refused' });
  assertSnapshot('session-events', text);
});

test('the compare command names each kernel\'s complete runs and says when fewer than 3 boots cannot carry a claim', () => {
  const lines = [sessionCompareLine(session(1, ['A', 'B', 'A', 'B', 'A', 'B'], 'complete', 'home', 6), '/tmp/lab.db'), sessionCompareLine(session(2, ['A', 'B', 'A', 'B'], 'complete', 'home', 4), undefined), String(sessionCompareLine(session(3, ['A', 'B'], 'failed', 'away', 1), undefined))];
  assertSnapshot('session-compare-line', lines.join('---\n'));
});

test('the session list gives each session its status, steps done, order, target and where its box is', () => {
  const list = [
    session(1, ['A', 'B', 'A', 'B', 'A', 'B'], 'complete', 'home', 6),
    session(2, ['A', 'B', 'A'], 'failed', 'away', 1),
    session(3, ['A', 'B'], 'interrupted', 'unknown', 0),
    session(14, ['A', 'B'], 'running', null, 0),
  ];
  assertSnapshot('session-list', sessionList(list) + sessionList([]));
});

test('a session starting or resuming names itself, its box and its steps', () => {
  assertSnapshot('session-head', sessionHeadLine(3, false, 'ssh://lab@box1', 6) + sessionHeadLine(3, true, 'ssh://lab@box1', 6));
});
