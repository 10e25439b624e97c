import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UserError } from '../../src/errors.ts';
import { BUILTIN_FRAGMENT, droppedSettings, mergeConfig, optFragment, parseConfig, parseFragment } from '../../src/kernel/config.ts';

test('a fragment reads set, unset and comment lines', () => {
  const f = parseFragment('# comment\nCONFIG_FOO=y\n\n# CONFIG_BAR is not set\nCONFIG_NAME="x y"\n', 'frag');
  assert.deepEqual(f, [
    { name: 'FOO', value: 'y' },
    { name: 'BAR', value: 'n' },
    { name: 'NAME', value: '"x y"' },
  ]);
});

test('a bad fragment line is refused with the file and line number', () => {
  assert.throws(() => parseFragment('CONFIG_FOO=y\nFOO=y\n', 'my.frag'), (e: unknown) => e instanceof UserError && /my\.frag:2: .*'FOO=y'/.test(e.message));
});

test('merging replaces existing lines in place and appends new ones; later settings win', () => {
  const base = 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n';
  const merged = mergeConfig(base, [
    { name: 'B', value: 'y' },
    { name: 'A', value: 'n' },
    { name: 'D', value: 'y' },
    { name: 'D', value: '42' },
  ]);
  assert.equal(merged, '# CONFIG_A is not set\nCONFIG_B=y\nCONFIG_C=m\nCONFIG_D=42\n');
});

test('options olddefconfig dropped are reported with their final state', () => {
  const final = 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\n';
  const dropped = droppedSettings(final, [
    { name: 'A', value: 'y' },
    { name: 'B', value: 'y' },
    { name: 'C', value: 'y' },
    { name: 'E', value: 'y' },
    { name: 'F', value: 'n' },
  ]);
  assert.deepEqual(dropped, ['CONFIG_B=y (now: not set)', 'CONFIG_C=y (now: m)', 'CONFIG_E=y (now: not set)']);
});

test('O2 selects CC_OPTIMIZE_FOR_PERFORMANCE and unsets the size option; Os the reverse', () => {
  assert.deepEqual(parseConfig(mergeConfig('CONFIG_CC_OPTIMIZE_FOR_SIZE=y\n', optFragment('O2'))), new Map([['CC_OPTIMIZE_FOR_SIZE', 'n'], ['CC_OPTIMIZE_FOR_PERFORMANCE', 'y']]));
  assert.equal(parseConfig(mergeConfig('', optFragment('Os'))).get('CC_OPTIMIZE_FOR_SIZE'), 'y');
});

test('the built-in fragment asks for a serial console, an initramfs and /proc', () => {
  const names = BUILTIN_FRAGMENT.map((s) => s.name);
  for (const n of ['SERIAL_8250_CONSOLE', 'BLK_DEV_INITRD', 'RD_GZIP', 'PROC_FS', 'BINFMT_ELF']) assert.ok(names.includes(n), n);
});

test('the built-in fragment asks for DWARF 5 line tables instead of no debug information', () => {
  const merged = parseConfig(mergeConfig('CONFIG_DEBUG_INFO_NONE=y\n', BUILTIN_FRAGMENT));
  assert.deepEqual(['DEBUG_INFO_NONE', 'DEBUG_INFO_DWARF5', 'DEBUG_INFO_REDUCED'].map((n) => merged.get(n)), ['n', 'y', 'y']);
});
