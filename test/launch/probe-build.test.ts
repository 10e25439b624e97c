import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { buildProbe } from '../../src/launch/probe-build.ts';
import { UserError } from '../../src/errors.ts';
import { tempDir } from '../helpers/cli.ts';

test('a missing compiler is a clear error naming the package to install', () => {
  assert.throws(
    () => buildProbe({ cc: 'no-such-cc-hintlab', cacheDir: tempDir() }),
    (e: Error) => e instanceof UserError && /the C compiler 'no-such-cc-hintlab' is not available .*apt-get install gcc libc6-dev/.test(e.message),
  );
});

test('the probe is built once per source and compiler, and the static build is a separate binary', () => {
  const cacheDir = tempDir();
  const a = buildProbe({ cacheDir });
  const b = buildProbe({ cacheDir });
  assert.equal(a.path, b.path);
  assert.ok(existsSync(a.path));
  assert.deepEqual(a.flags, ['-O2', '-Wall', '-Wextra', '-Werror', '-pthread']);
  const s = buildProbe({ cacheDir, static: true });
  assert.notEqual(s.buildId, a.buildId);
  assert.ok(s.path.endsWith('hintlab-probe-static'));
});
