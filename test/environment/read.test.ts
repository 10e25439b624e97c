import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { vmEnvironment } from '../../src/environment/guest.ts';
import { collectEnvironment } from '../../src/environment/host.ts';
import { knownText, readEnvironment, vmOf, whereOf } from '../../src/environment/read.ts';
import type { RemoteEnvironment } from '../../src/environment/record.ts';
import type { Environment, RunKind } from '../../src/model.ts';
import { Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/cli.ts';
import { fakeSys } from './fake-sys.ts';

/** The environment of a real `hintlab bench` run stored before records were tagged (no `where`). */
const BEFORE_TAG = JSON.parse(readFileSync(new URL('../fixtures/environment-before-tag.json', import.meta.url), 'utf8')) as Environment;
const PROBE = { buildId: 'b1', compiler: 'cc', compilerVersion: 'gcc 12.2.0', flags: ['-O2'], static: true };

/** Store `environment` as a run of `kind` in a real SQLite store and read the run back. */
function storedAndRead(kind: RunKind, environment: Environment) {
  const store = Store.open(join(tempDir(), 'runs.db'));
  try {
    const id = store.createRun({
      label: null,
      kind,
      unit: kind === 'macro' ? 'bogo-ops/s' : 'ns/call',
      replicateUnit: kind === 'bench' ? 'process' : kind === 'vm' ? 'boot' : 'invocation',
      command: 'hintlab test',
      hintlabVersion: '0.0.0',
      params: { subjects: ['getppid'], ops: 1000, warmups: 0, rounds: 1, cpu: null, subjectParams: {}, extra: {} },
      environment,
    });
    return store.getRun(id);
  } finally {
    store.close();
  }
}

function withoutTag(env: object): Environment {
  const { where: _where, ...rest } = env as Environment;
  return rest;
}

test('a host record stored before the tag reads back as host, its fields typed', () => {
  assert.equal(BEFORE_TAG.where, undefined);
  const env = readEnvironment(storedAndRead('bench', BEFORE_TAG));
  assert.equal(env.where, 'host');
  assert.equal(vmOf(env), undefined);
  assert.equal(env.kernel?.release?.known, true);
  assert.equal(knownText(env.kernel.release), (BEFORE_TAG.kernel as { release: { value: string } }).release.value);
  assert.equal(env.pinnedCpu, BEFORE_TAG.pinnedCpu);
  assert.equal(env.probe?.compilerVersion, (BEFORE_TAG.probe as { compilerVersion: string }).compilerVersion);
});

test('a VM record stored before the tag reads back as guest, for a vm run and for vm --macro (a macro run with a vm part)', () => {
  const guest = vmEnvironment({
    probe: PROBE,
    kernel: { manifest: null, configHash: { known: true, value: 'abc' } },
    facts: { kernelLabel: 'A', kernelPath: '/k/bzImage', bootIndex: 1, accel: 'tcg', icount: true },
    append: 'console=ttyS0',
    reader: fakeSys({}, 'lab-host'),
  });
  const old = withoutTag(guest);
  for (const kind of ['vm', 'macro'] as const) {
    const env = readEnvironment(storedAndRead(kind, old));
    assert.equal(env.where, 'guest', kind);
    assert.equal(vmOf(env)?.kernelLabel, 'A');
    assert.equal(vmOf(env)?.icount, true);
  }
  // a vm run's record is a guest's even if its vm part were missing
  assert.equal(whereOf({ kind: 'vm', environment: {} }), 'guest');
  assert.equal(whereOf({ kind: 'macro', environment: {} }), 'host');
});

test('new records carry their tag through the store', () => {
  const host = collectEnvironment({ probe: PROBE, pinnedCpu: 0, injectSeccomp: null, reader: fakeSys({}, 'lab-host') });
  assert.equal(host.where, 'host');
  assert.equal(storedAndRead('bench', host as unknown as Environment).environment.where, 'host');
  const remote: RemoteEnvironment = { ...host, where: 'remote', remote: { hostname: 'box1', url: 'ssh://lab@box1:22' } };
  const env = readEnvironment(storedAndRead('bench', remote as unknown as Environment));
  assert.equal(env.where, 'remote');
  assert.deepEqual(env.remote, { hostname: 'box1', url: 'ssh://lab@box1:22' });
  assert.equal(vmOf(env), undefined);
});

test('knownText: a read value, "unknown" for an unreadable one, plain values as text, nothing for an absent one', () => {
  assert.equal(knownText({ known: true, value: '6.12.0' }), '6.12.0');
  assert.equal(knownText({ known: false, reason: 'ENOENT' }), 'unknown');
  assert.equal(knownText('tcg'), 'tcg');
  assert.equal(knownText(2), '2');
  assert.equal(knownText(undefined), undefined);
  assert.equal(knownText(null), undefined);
});
