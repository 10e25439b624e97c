/**
 * Column-limited text for mailing-list reports. Kernel mailing lists expect
 * plain text no wider than 72 columns; prose is wrapped at spaces and shell
 * commands are wrapped with line continuations so they still paste into a
 * shell and run unchanged.
 */

/** The widest line a mailing-list report may contain. */
export const LKML_COLUMNS = 72;

/**
 * Wrap prose to at most `width` columns. Breaks at spaces; the first line
 * starts with `firstPrefix`, later ones with `restPrefix` (a hanging indent).
 * A single word longer than the room left is cut, never allowed to overflow.
 * No-break spaces (U+00A0) keep words together and come out as spaces.
 */
export function wrapProse(text: string, width: number, firstPrefix = '', restPrefix = firstPrefix): string[] {
  // Split on ASCII whitespace only: a no-break space (U+00A0) glues a number to its unit.
  const words = text.split(/[ \t\r\n]+/).filter((w) => w.length > 0);
  const lines: string[] = [];
  let line = firstPrefix;
  let empty = true as boolean;
  const flush = (): void => {
    lines.push(line.trimEnd());
    line = restPrefix;
    empty = true;
  };
  for (let word of words) {
    if (!empty && line.length + 1 + word.length > width) flush();
    // A word that cannot fit even on a fresh line is broken after a separator (`,;/|`), so its tokens stay whole; cut only when it has none.
    while (line.length + (empty ? 0 : 1) + word.length > width) {
      const room = width - line.length - (empty ? 0 : 1);
      if (room <= 0) {
        flush();
        continue;
      }
      const at = breakAt(word, room);
      if (at === 0 && !empty) {
        flush();
        continue;
      }
      const take = at > 0 ? at : room;
      line += (empty ? '' : ' ') + word.slice(0, take);
      word = word.slice(take);
      flush();
    }
    if (word.length > 0) {
      line += (empty ? '' : ' ') + word;
      empty = false;
    }
  }
  if (!empty || lines.length === 0) lines.push(line.trimEnd());
  return lines.map((l) => l.replace(/\u00a0/g, ' '));
}

/**
 * Where a word too long for `room` columns may break: just after its last
 * separator (`,` `;` `/` `|`) within the room, or 0 when it has none there
 * (a token such as `period=0` is never split).
 */
function breakAt(word: string, room: number): number {
  for (let i = Math.min(room, word.length) - 1; i > 0; i--) if (',;/|'.includes(word[i]!)) return i + 1;
  return 0;
}

/**
 * Split a shell command line into words, keeping quotes as written (so the
 * words can be re-joined verbatim). Whitespace outside quotes separates.
 */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (quote === null && /\s/.test(c)) {
      if (word.length > 0) words.push(word);
      word = '';
      continue;
    }
    word += c;
    if (c === '\\' && quote !== "'" && i + 1 < command.length) {
      word += command[++i] as string;
    } else if (quote === null && (c === "'" || c === '"')) {
      quote = c;
    } else if (c === quote) {
      quote = null;
    }
  }
  if (word.length > 0) words.push(word);
  return words;
}

/**
 * Wrap a shell command to at most `width` columns such that pasting the
 * lines into a POSIX shell runs exactly the same command: lines end in
 * ` \` and continue with `indent`. An option stays on the line of its value
 * when they fit together. A word longer than a line is split with a
 * backslash-newline inside the word, which the shell removes; inside single
 * quotes (where backslash is literal) the quote is closed before the break
 * and reopened after it.
 */
export function wrapCommand(command: string, width: number, firstPrefix = '', indent = '    '): string[] {
  const lines: string[] = [];
  let line = firstPrefix;
  let empty = true as boolean;
  // Room for a word plus the trailing " \" a continued line needs.
  const fits = (text: string): boolean => line.length + (empty ? 0 : 1) + text.length + 2 <= width;
  const append = (text: string): void => {
    line += (empty ? '' : ' ') + text;
    empty = false;
  };
  const newLine = (): void => {
    lines.push(`${line} \\`);
    line = indent;
    empty = true;
  };
  for (const group of optionGroups(shellWords(command))) {
    const joined = group.join(' ');
    if (!fits(joined) && !empty) newLine();
    if (fits(joined)) {
      append(joined);
      continue;
    }
    for (const word of group) {
      if (!fits(word) && !empty) newLine();
      if (fits(word)) {
        append(word);
        continue;
      }
      const pieces = splitWord(word, width - line.length - (empty ? 0 : 1), width);
      append(pieces[0] as string);
      for (const piece of pieces.slice(1)) {
        lines.push(line);
        line = piece;
      }
    }
  }
  lines.push(line);
  return lines;
}

/** `--rounds 15` travels as one group; every other word alone. */
function optionGroups(words: string[]): string[][] {
  const groups: string[][] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const next = words[i + 1];
    if (w.startsWith('-') && !w.includes('=') && next !== undefined && !next.startsWith('-')) {
      groups.push([w, next]);
      i++;
    } else {
      groups.push([w]);
    }
  }
  return groups;
}

/**
 * Cut one shell word into pieces: the first fits in `firstRoom` columns and
 * later ones in `width`, each piece but the last ending in a continuation
 * (`\`, or `'\` inside single quotes, whose next piece starts with `'`).
 */
function splitWord(word: string, firstRoom: number, width: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let room = firstRoom;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < word.length; i++) {
    const c = word[i] as string;
    // A backslash escape is kept whole: never break between `\` and its character.
    const unit = c === '\\' && quote !== "'" && i + 1 < word.length ? c + (word[++i] as string) : c;
    // Leave room for the longest continuation, `'\`.
    if (piece.length + unit.length + 2 > room && piece.length > (quote === "'" ? 1 : 0)) {
      pieces.push(quote === "'" ? `${piece}'\\` : `${piece}\\`);
      piece = quote === "'" ? "'" : '';
      room = width;
    }
    piece += unit;
    if (unit.length === 1) {
      if (quote === null && (c === "'" || c === '"')) quote = c;
      else if (c === quote) quote = null;
    }
  }
  pieces.push(piece);
  return pieces;
}

/** The signs the reports write outside ASCII, as a mail to a list spells them. */
const ASCII_SPELLING: Record<string, string> = {
  '\u00b1': '+/-',
  '\u00d7': 'x',
  '\u2013': '-',
  '\u2014': '-',
  '\u2212': '-',
  '\u2026': '...',
  '\u00b5': 'u',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2248': '~',
  '\u2192': '->',
  '\u2018': "'",
  '\u2019': "'",
  '\u201c': '"',
  '\u201d': '"',
};

/**
 * Mail to a kernel list is plain ASCII, and tabs and control characters
 * would break the column count (mail clients mangle them): `±` becomes
 * `+/-` (and the other signs above their spelling), any other non-ASCII
 * character (a label, a host name) a `?`, a tab a space, other controls a
 * `?`. The no-break space that glues a number to its unit stays: the
 * wrapper turns it back into a space.
 */
export function plain(text: string): string {
  return text
    .replace(/\t/g, ' ')
    .replace(/[\x00-\x1f\x7f]/g, '?')
    .replace(/[^\x00-\x7f\u00a0]/gu, (ch) => ASCII_SPELLING[ch] ?? '?');
}

/** The last guard of a mail block: any byte past ASCII left in it becomes a `?` (one column for one). */
export function asciiOnly(text: string): string {
  return text.replace(/[^\x00-\x7f]/gu, '?');
}

/** Keep a number on the same line as the word after it ("2.5 %", "182.4 ns/call"). */
export function glueNumbers(text: string): string {
  return text.replace(/(\d) (?=\S)/g, '$1\u00a0');
}

/** Mailing-list prose: wrapped at 72 columns with a hanging indent, numbers kept with their units. */
export function lkmlPara(text: string, first = '', rest = '  '): string[] {
  return wrapProse(glueNumbers(plain(text)), LKML_COLUMNS, first, rest);
}
