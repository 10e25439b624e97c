/** The closing line of an interrupted vm order says what happened to the boot in flight where boots run. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { reportSteps } from '../../src/cli/vm-report.ts';
import { Store } from '../../src/store/store.ts';
import { tempDir } from '../helpers/cli.ts';

function interruptedMessage(where?: 'qemu' | 'lava'): string {
  const store = Store.open(join(tempDir(), 'v.db'));
  const io = { stdout: () => {}, stderr: () => {} } as unknown as Parameters<typeof reportSteps>[0];
  try {
    reportSteps(io, store, { state: 'interrupted', steps: [] }, 6, undefined, undefined, where);
  } catch (err) {
    return (err as Error).message;
  } finally {
    store.close();
  }
  throw new Error('an interrupted order must end in an error');
}

test('an interrupted local order says qemu was stopped; one on a LAVA lab says the job in flight was asked to cancel', () => {
  assert.equal(interruptedMessage(), 'interrupted after 0 of 6 boots; qemu was stopped and the boot in flight is stored as failed');
  assert.equal(interruptedMessage('lava'), 'interrupted after 0 of 6 boots; the LAVA job in flight was asked to cancel and its boot is stored as failed');
});
