/**
 * Shell quoting for the command lines hintlab prints and stores (reproduce
 * commands, qemu command lines): a word that needs no quoting is left as it
 * is, anything else is single-quoted so pasting it into sh gives back the
 * same argument.
 */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A whole argument vector as one pasteable line. */
export function shellLine(argv: readonly string[]): string {
  return argv.map(shellWord).join(' ');
}
