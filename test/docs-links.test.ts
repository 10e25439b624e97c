/**
 * Every link between the README, the CHANGELOG and docs/ resolves: a
 * relative link names a file that exists, and an anchor names a heading of
 * that file as GitHub spells it. Bare mentions such as
 * `docs/compare.md#the-verdicts` in prose are checked the same way, and so
 * is a section named in words (`docs/bench.md, "Which clock"`) anywhere in
 * the docs or the source: some heading of that page must hold the words.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pages = ['README.md', 'CHANGELOG.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks, line by line (fences hold outputs whose `#` is not a heading). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) { fenced = !fenced; return false; }
    return !fenced;
  });
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading?.[1]) continue;
    const slug = heading[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** Relative link targets of a page: `[text](target)` and bare `docs/X.md#anchor` mentions. */
function targets(text: string): string[] {
  const lines = prose(text).join('\n').replace(/`[^`\n]*`/g, (code) => (/^`docs\/[\w.-]+\.md#/.test(code) ? code : ''));
  const links = [...lines.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? '');
  const bare = [...lines.matchAll(/(?<![\w/(])(docs\/[\w.-]+\.md#[\w-]+)/g)].map((m) => m[1] ?? '');
  return [...links, ...bare].filter((t) => t !== '' && !/^[a-z]+:/i.test(t));
}

function broken(page: string): string[] {
  const text = readFileSync(join(root, page), 'utf8');
  const problems: string[] = [];
  for (const target of targets(text)) {
    const [path = '', anchor] = target.split('#', 2);
    // A bare docs/ mention is written from the repository's root, a link from its page's folder.
    const base = target.startsWith('docs/') && page.startsWith('docs/') && !existsSync(join(root, dirname(page), path)) ? root : join(root, dirname(page));
    const file = path === '' ? join(root, page) : join(base, path);
    if (!existsSync(file)) { problems.push(`${page}: ${target} names ${relative(root, file)}, which does not exist`); continue; }
    if (anchor === undefined || anchor === '' || !file.endsWith('.md')) continue;
    if (!anchors(readFileSync(file, 'utf8')).has(anchor)) problems.push(`${page}: ${target} names no heading of ${relative(root, file)}`);
  }
  return problems;
}

/** Every file under a folder, recursively, fixtures left out (they quote other projects' text). */
function walk(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (name === 'fixtures' || name === 'node_modules') return [];
    return statSync(join(root, path)).isDirectory() ? walk(path) : [path];
  });
}

/** Headings of a page as words: lower case, code marks and a closing full stop or question mark dropped. */
function headingWords(text: string): string[] {
  return prose(text).filter((line) => /^#{1,6}\s/.test(line)).map((line) => words(line.replace(/^#+\s*/, '')));
}

function words(text: string): string {
  return text.replace(/`/g, '').toLowerCase().trim().replace(/[.?]$/, '');
}

function unnamedSections(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(docs\/[\w.-]+\.md),?\s*\(?"([^"\n]+)"/g)].flatMap(([, page = '', name = '']) => {
    if (!existsSync(join(root, page))) return [`${file}: names ${page}, which does not exist`];
    return headingWords(readFileSync(join(root, page), 'utf8')).some((h) => h.includes(words(name))) ? [] : [`${file}: ${page} has no section "${name}"`];
  });
}

test('a heading anchor is spelt as GitHub spells it, repeats numbered and fenced lines skipped', () => {
  const found = anchors('# Commands\n## hintlab runs, hintlab export\n## Can this machine see a change? (bench/power.ts)\n```\n#1 A bench\n```\n## Every command: exit statuses, --quiet, --db\n## Results\n## Results\n');
  assert.deepEqual([...found], ['commands', 'hintlab-runs-hintlab-export', 'can-this-machine-see-a-change-benchpowerts', 'every-command-exit-statuses---quiet---db', 'results', 'results-1']);
});

test('every relative link and docs anchor in the README, the CHANGELOG and docs/ resolves', () => {
  assert.ok(pages.length > 3, 'docs/ holds the pages');
  assert.deepEqual(pages.flatMap(broken), []);
});

test('every section named in words after a docs page is a heading of that page', () => {
  const files = [...pages, ...walk('src'), ...walk('test'), ...walk('bench'), ...walk('scripts')];
  assert.ok(files.some((f) => f.startsWith('src/')), 'the source is read too');
  assert.deepEqual(files.flatMap(unnamedSections), []);
});

test('every source, test, bench or script file the README and docs/ name exists', () => {
  const missing = pages.flatMap((page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const named = [...text.matchAll(/\b((?:src|test|bench|scripts|probes)\/[\w/.-]+\.(?:ts|mjs|c|h|sh))\b/g)].map((m) => m[1] ?? '');
    return named.filter((path) => !existsSync(join(root, path))).map((path) => `${page}: ${path} does not exist`);
  });
  assert.deepEqual(missing.filter((line) => !line.startsWith('CHANGELOG.md')), []);
});
