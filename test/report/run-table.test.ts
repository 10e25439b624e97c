/**
 * `runs --verbose`: the environment record as lines. A VM run's record
 * mixes the guest (its kernel, qemu mode, CPUs) and the host that ran qemu
 * (CPU model, microcode, vulnerabilities, load): each is labelled.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Run } from '../../src/model.ts';
import { environmentText, paramsText } from '../../src/report/run-table.ts';
import { vmEnvironment } from '../../src/environment/guest.ts';
import { fakeSys } from '../environment/fake-sys.ts';
import { hostEnvironment, makeRun } from '../compare/fixtures.ts';

const PROBE = { path: '/p', static: true, buildId: 'b1', compiler: 'cc', compilerVersion: 'gcc 12.2.0', flags: ['-O2'] };

function vmRun(): Run {
  const env = vmEnvironment({
    probe: PROBE,
    kernel: { manifest: null, configHash: { known: true, value: 'abc' } },
    facts: { kernelLabel: 'A', kernelPath: '/k/bzImage', bootIndex: 1, accel: 'tcg', icount: true, guestCpus: 1 },
    append: 'console=ttyS0 panic=-1 quiet nokaslr',
    reader: fakeSys({}, 'lab-host'),
  });
  return { ...makeRun({ id: 1, kind: 'vm', unit: 'instructions/call', values: { getppid: [217.1] } }), environment: env as unknown as Record<string, unknown> };
}

/** The lines under a `  host ...:` or `  guest ...:` heading, up to the next heading. */
function section(text: string, side: 'host' | 'guest'): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  ${side} `));
  assert.ok(start >= 0, `no ${side} section in:\n${text}`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => !l.startsWith('    '));
  return end < 0 ? rest : rest.slice(0, end);
}

test("a VM run's host facts (vulnerabilities, CPUs, microcode, load) are listed under host, never as the guest's", () => {
  const text = environmentText(vmRun());
  const host = section(text, 'host');
  const guest = section(text, 'guest');
  for (const field of ['hostname: lab-host', 'cpu.microcode: 0x2b', 'cpu.online: 0-1', 'vulnerabilities.meltdown: Not affected', 'load.start: 0.1 0.2 0.3']) {
    assert.ok(host.includes(`    ${field}`), `${field} under host:\n${text}`);
    assert.ok(!guest.some((l) => l.includes(field.split(':')[0]!)), `${field} not under guest`);
  }
  for (const field of ['kernel.cmdline: console=ttyS0 panic=-1 quiet nokaslr', 'kernel.configHash: abc', 'vm.guestCpus: 1', 'pinnedCpu: 0', 'virtualization: qemu tcg (guest)']) {
    assert.ok(guest.includes(`    ${field}`), `${field} under guest:\n${text}`);
  }
});

test('a host run keeps its flat environment lines', () => {
  const text = environmentText({ ...makeRun({ id: 2, values: { getppid: [100] } }), environment: hostEnvironment() });
  assert.match(text, /^ {2}hostname: lab1$/m);
  assert.match(text, /^ {2}kernel\.release: 6\.12\.9-amd64$/m);
  assert.doesNotMatch(text, /guest|host \(/);
});

test("runs --verbose shows each subject's parameters, the probe's after 'probe:', and runs stored before without them", () => {
  const now = makeRun({ id: 3, design: 'separate', values: { 'select-1000': [29455] }, ops: 500, subjectParams: { 'select-1000': { call: 'select', ops: 500, probe: { fds: 1000, nfds: 1006 } } } });
  assert.match(paramsText(now), /^ {2}select-1000: call=select, ops=500; probe: fds=1000, nfds=1006$/m);
  const old = makeRun({ id: 4, design: 'separate', values: { 'select-1000': [29455] }, ops: 500, subjectParams: { 'select-1000': { call: 'select', ops: 500 } } });
  assert.match(paramsText(old), /^ {2}select-1000: call=select, ops=500$/m);
  assert.match(paramsText(old), /^ {2}ops 500, warmups 0, rounds 1, cpu 1$/m);
});
