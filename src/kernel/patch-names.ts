/**
 * The one reader of a unified diff's file headers (`--- NAME`, `+++ NAME`,
 * git's `rename from NAME`/`copy to NAME`), reading names as patch(1) and
 * git write them:
 *   - a name in double quotes is a C string (git's quoting of names with
 *     a quote, a backslash, a control or non-ASCII byte: `"a/my\040file.c"`,
 *     octal escapes being bytes of UTF-8);
 *   - otherwise the name ends at a tab (diff -u puts one before the time
 *     stamp; git puts one after a name with a space) or at the line's end.
 * An unquoted name with a space and no tab after it is refused: patch(1)
 * would cut it at the space and patch another file.
 *
 * Hunk bodies are read by their line counts, so a removed line that
 * reads `-- x` is never taken for a header.
 */
import { UserError } from '../errors.ts';

/** One file section of a diff: the names of its header lines and its hunks. */
export interface PatchSection {
  /** 1-based line of the `---` header. */
  line: number;
  /** The names as given, after unquoting (`a/kernel/sys.c`, or `/dev/null`). */
  oldName: string;
  newName: string;
  /** The new-file start line of each hunk, in order. */
  hunkStarts: number[];
  /** The hunks' removed and added lines, without their '-' and '+'. */
  removed: string[];
  added: string[];
}

/** A name a -p1 patch reads or writes, with the line that names it. */
export interface PatchName {
  line: number;
  /** As written in the patch, unquoted (`a/kernel/sys.c`). */
  given: string;
  /** Relative to the tree, as `patch -p1` strips it (`kernel/sys.c`). */
  file: string;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** A C-quoted name (git's quote_c_style), its closing quote included; null when it is not one. */
function unquote(text: string): { name: string; rest: string } | null {
  const bytes: number[] = [];
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return { name: Buffer.from(bytes).toString('utf8'), rest: text.slice(i + 1) };
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const octal = /^[0-3][0-7]{2}/.exec(text.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else if (text[i + 1]! in ESCAPES) {
      bytes.push(ESCAPES[text[++i]!]!);
    } else return null;
  }
  return null;
}

/** The name of a header line after its `--- ` (or `rename from `); `where` (the patch and line) is said when it cannot be read. */
export function headerName(rest: string, where: string): string {
  if (rest.startsWith('"')) {
    const q = unquote(rest);
    if (!q || (q.rest !== '' && !q.rest.startsWith('\t'))) throw new UserError(`${where}: ${JSON.stringify(rest)} is not a complete C-quoted name (as git writes "a/my\\040file.c"); fix that line`, 2);
    return q.name;
  }
  const tab = rest.indexOf('\t');
  const name = tab >= 0 ? rest.slice(0, tab) : rest.replace(/\s+$/, '');
  if (tab < 0 && /\s/.test(name)) {
    throw new UserError(
      `${where}: the name '${name}' holds a space and no tab ends it: patch(1) would read '${name.split(/\s/)[0]}' and patch another file; ` +
        'end the name with a tab (as diff -u and git do) or quote it as git does ("a/my file.c")',
      2,
    );
  }
  return name;
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Every file section of a unified diff, its hunks counted past; `source` names the patch in errors. */
export function patchSections(diff: string, source = 'the patch'): PatchSection[] {
  const lines = diff.split('\n');
  const sections: PatchSection[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const hunk = HUNK.exec(line);
    if (hunk && sections.length > 0) {
      const section = sections.at(-1)!;
      section.hunkStarts.push(Number(hunk[2]));
      // skip the body: old lines (' ', '-') and new lines (' ', '+') as the header counts them
      let old = Number(hunk[1] ?? 1);
      let neu = Number(hunk[3] ?? 1);
      while ((old > 0 || neu > 0) && i + 1 < lines.length) {
        const body = lines[i + 1]!;
        const c = body[0];
        if (c === '-') {
          old--;
          section.removed.push(body.slice(1));
        } else if (c === '+') {
          neu--;
          section.added.push(body.slice(1));
        }
        else if (c === ' ' || body === '') {
          old--;
          neu--;
        } else if (c !== '\\') break; // '\ No newline at end of file' belongs to the line before
        i++;
      }
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const oldName = headerName(line.slice(4), `${source}, line ${i + 1}`);
      const newName = headerName(lines[i + 1]!.slice(4), `${source}, line ${i + 2}`);
      sections.push({ line: i + 1, oldName, newName, hunkStarts: [], removed: [], added: [] });
      i++;
    }
  }
  return sections;
}

/** `a/kernel/sys.c` as `patch -p1` strips it: `kernel/sys.c`. */
export const stripOne = (name: string): string => name.split('/').slice(1).join('/');

/** Every name the diff's headers and git's rename/copy lines give (/dev/null aside), in order, with its line. */
export function patchNames(diff: string, source = 'the patch'): PatchName[] {
  const names: PatchName[] = [];
  for (const s of patchSections(diff, source)) {
    if (s.oldName !== '/dev/null') names.push({ line: s.line, given: s.oldName, file: stripOne(s.oldName) });
    if (s.newName !== '/dev/null') names.push({ line: s.line + 1, given: s.newName, file: stripOne(s.newName) });
  }
  diff.split('\n').forEach((line, i) => {
    // git's extended headers name the tree-relative path, without a/ or b/, to the line's end (quoted when special)
    const m = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line);
    if (m) {
      const given = m[1]!.startsWith('"') ? headerName(m[1]!, `${source}, line ${i + 1}`) : m[1]!;
      names.push({ line: i + 1, given, file: given });
    }
  });
  return names;
}

/**
 * A name as a header line carries it: quoted as git quotes it when it has a
 * quote, a backslash, a control or non-ASCII character; with a tab after it
 * when it has a space (so patch(1) reads it whole).
 */
export function headerText(name: string): string {
  if (/["\\\u0000-\u001f\u007f-\uffff]/.test(name)) {
    const quoted = [...Buffer.from(name, 'utf8')]
      .map((b) => {
        const named = Object.entries(ESCAPES).find(([, v]) => v === b)?.[0];
        if (named) return `\\${named}`;
        return b < 0x20 || b >= 0x7f ? `\\${b.toString(8).padStart(3, '0')}` : String.fromCharCode(b);
      })
      .join('');
    return `"${quoted}"`;
  }
  return / /.test(name) ? `${name}\t` : name;
}
