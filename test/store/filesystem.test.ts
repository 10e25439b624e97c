/** Naming the file system that holds the database, from /proc/self/mountinfo text. */
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { test } from 'node:test';
import { describeFilesystem, parseMountInfo } from '../../src/store/filesystem.ts';
import { tempDir } from '../helpers/cli.ts';

/** A mountinfo where `dir` (a real directory, with a space in its name) is an xfs mount. */
function mountInfo(dir: string): string {
  return [
    '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    `31 22 0:26 / ${dir.replace(/ /g, '\\040')} rw,relatime - xfs /dev/vdb rw`,
    `32 31 0:27 / ${dir.replace(/ /g, '\\040')} rw,relatime - btrfs /dev/vdc rw`,
  ].join('\n');
}

test('mount points are parsed with their type, octal escapes undone', () => {
  assert.deepEqual(parseMountInfo(mountInfo('/mnt/my results')), [
    { mountPoint: '/', fsType: 'ext4' },
    { mountPoint: '/mnt/my results', fsType: 'xfs' },
    { mountPoint: '/mnt/my results', fsType: 'btrfs' },
  ]);
});

test('the longest mount point holding the path wins, and of two at the same place the one mounted last', () => {
  const dir = realpathSync(tempDir('hintlab my results-'));
  const text = mountInfo(dir);
  assert.equal(describeFilesystem(`${dir}/h.db`, text), `${dir} (btrfs)`);
  assert.equal(describeFilesystem(`${dir}/not/yet/made/h.db`, text), `${dir} (btrfs)`, 'a missing directory is placed by its nearest existing parent');
  assert.equal(describeFilesystem(`${dir}x/h.db`, text), '/ (ext4)', 'a sibling with a longer name is not under the mount');
});
