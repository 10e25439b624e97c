/** Bad input to `hintlab vm --target lava://...` is refused before anything is built or submitted, naming the flag and the fix. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { bzImageStub, runCli, tempDir } from '../helpers/cli.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));
const image = bzImageStub(dir);
const db = join(dir, 'x.db');

test('hintlab vm --target refuses what a LAVA lab cannot run, with exit status 2', async () => {
  const k = ['--kernel', `A=${image}`, '--kernel', `B=${image}`, '--db', db];
  const cases: [string[], RegExp][] = [
    [['vm', ...k, '--target', 'ssh://root@box'], /--target ssh:\/\/\*\*\*@box: not a LAVA address; use lava:\/\/\[TOKEN@\]SERVER\[:PORT\]\/DEVICE_TYPE/],
    [['vm', ...k, '--target', 'lava://s3cret@lab/'], /the device type is missing after the server/],
    [['vm', ...k, '--resume'], /--resume continues an order on a LAVA lab \(--target lava:\/\/\.\.\.\)/],
    [['vm', ...k, '--target', 'lava://lab/qemu', '--macro'], /--macro does not run on a LAVA lab yet/],
  ];
  for (const [argv, re] of cases) {
    const r = await runCli(argv);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re);
    assert.ok(!r.stderr.includes('s3cret'), 'a token is never echoed');
  }
});
