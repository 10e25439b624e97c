/**
 * The format of a written file, from --format and the extension of -o.
 * A file named x.html holds HTML: without --format the extension decides,
 * a --format that contradicts it is refused, and a file whose extension
 * says nothing needs --format (lkml, for one, has no extension of its own)
 * unless the command has a default every name may hold (export's JSON).
 */
import { extname } from 'node:path';
import { UserError } from '../errors.ts';

/** Each extension a command writes, with the formats that fit it, the one taken by default first (src/report/formats.ts's `extensionsOf`). */
export type ExtensionFormats = Record<string, readonly [string, ...string[]]>;

/** What commander parsed: the --format value, and whether it was typed (not its default). */
export interface FormatChoice {
  format: string;
  given: boolean;
  output: string | undefined;
}

/** The format to write in, or a usage error naming -o, --format and the fix. */
export function outputFormat(choice: FormatChoice, extensions: ExtensionFormats, unknownExtension: 'refuse' | 'default' = 'refuse'): string {
  const { format, given, output } = choice;
  if (output === undefined || output === '') return format;
  const ext = extname(output).toLowerCase();
  const fits = Object.hasOwn(extensions, ext) ? extensions[ext] : undefined;
  const known = Object.keys(extensions).join(', ');
  if (fits === undefined) {
    if (given || unknownExtension === 'default') return format;
    throw new UserError(`-o ${output}: cannot tell the format from ${ext === '' ? 'a name without an extension' : `the extension '${ext}'`} (known: ${known}); pass --format, or name the file with one of those extensions`, 2);
  }
  if (!given) return fits[0];
  if (fits.includes(format)) return format;
  throw new UserError(`--format ${format} contradicts -o ${output}, which names a ${ext} file (${fits.join(' or ')}); drop --format, or give the file a name that fits ${format}`, 2);
}
