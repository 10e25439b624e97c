/**
 * Which lines of a C file can carry code: the basis of the check that a
 * profile was taken from this very source (a count on a blank or
 * comment-only line, or past the end, means it was not).
 */

type LexState = 'code' | 'line-comment' | 'block-comment' | 'string' | 'char';

/**
 * 1-based numbers of the lines holding only whitespace and comments.
 * A small lexer rather than the tree-sitter tree, because comments inside
 * macro bodies and error nodes must count too.
 */
export function blankLines(text: string): number[] {
  const blanks: number[] = [];
  let state: LexState = 'code';
  let line = 1;
  let hasCode = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '\n') {
      if (!hasCode) blanks.push(line);
      line++;
      hasCode = false;
      if (state === 'line-comment') state = 'code';
      continue;
    }
    switch (state) {
      case 'line-comment':
        break;
      case 'block-comment':
        if (c === '*' && next === '/') {
          state = 'code';
          i++;
        }
        break;
      case 'string':
      case 'char':
        hasCode = true;
        if (c === '\\') i++;
        else if ((c === '"' && state === 'string') || (c === "'" && state === 'char')) state = 'code';
        break;
      case 'code':
        if (c === '/' && next === '/') {
          state = 'line-comment';
          i++;
        } else if (c === '/' && next === '*') {
          state = 'block-comment';
          i++;
        } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
          // whitespace
        } else {
          hasCode = true;
          if (c === '"') state = 'string';
          else if (c === "'") state = 'char';
        }
        break;
    }
  }
  // A final line without a newline still counts as a line.
  if (text.length > 0 && !text.endsWith('\n') && !hasCode) blanks.push(line);
  return blanks;
}

/** Number of lines, counting a last line without a trailing newline. */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return text.endsWith('\n') ? n : n + 1;
}
