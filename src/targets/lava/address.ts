/**
 * `--target lava://[TOKEN@]SERVER[:PORT]/DEVICE_TYPE[?tags=a,b&serve=HOST:PORT]`:
 * a LAVA server's REST API over http (`lava+https://` for https), the device
 * type the jobs ask for, the device tags they require, and, for a worker on
 * another machine, where hintlab serves the kernels over HTTP (without it
 * the jobs name file:// URLs, for a worker on this machine). The token may instead
 * come from $HINTLAB_LAVA_TOKEN, so it stays out of shell history; it is
 * never part of the address's name, which is what runs store.
 */
import { printable, UserError } from '../../errors.ts';

export interface LavaAddress {
  /** `http://server:port` (no trailing slash). */
  base: string;
  /** The address as stored and shown: `lava://server:port/qemu`, without the token. */
  name: string;
  token: string | null;
  deviceType: string;
  tags: string[];
  /** `serve=HOST:PORT`: hintlab serves the files there (./serve.ts); null: file:// URLs. */
  serve: string | null;
}

const FORM = 'lava://[TOKEN@]SERVER[:PORT]/DEVICE_TYPE[?tags=a,b&serve=HOST:PORT]';

export function parseLavaAddress(value: string, env: NodeJS.ProcessEnv = process.env): LavaAddress {
  // the token is everything up to the last `@`: a token holding `/` or `:` is still a token, and is masked as one
  const m = /^lava(\+https)?:\/\/(?:(.*)@)?([^/?#@]+)\/([^/?#@]*)(?:\?(.*))?$/.exec(value);
  if (!m) throw new UserError(`--target ${printable(maskAnyToken(value))}: not a LAVA address; use ${FORM}`, 2);
  const [, https, userinfo, host, deviceType, query] = m;
  if (!deviceType) throw new UserError(`--target ${FORM}: the device type is missing after the server (e.g. lava://${host}/qemu)`, 2);
  if (!/^[A-Za-z0-9_.-]+$/.test(deviceType)) throw new UserError(`--target: '${printable(deviceType)}' is not a LAVA device type name (letters, digits, _ . -)`, 2);
  const { tags, serve } = parseQuery(query ?? '');
  // user:token or token alone; LAVA's REST API needs only the token
  const token = userinfo ? decoded(userinfo.includes(':') ? userinfo.slice(userinfo.indexOf(':') + 1) : userinfo, 'the token') : (env.HINTLAB_LAVA_TOKEN || null);
  const scheme = https ? 'https' : 'http';
  return {
    base: `${scheme}://${host}`,
    name: `lava${https ?? ''}://${host}/${deviceType}${tags.length ? `?tags=${tags.join(',')}` : ''}`,
    token,
    deviceType,
    tags,
    serve,
  };
}

function parseQuery(query: string): { tags: string[]; serve: string | null } {
  const tags: string[] = [];
  let serve: string | null = null;
  for (const part of query ? query.split('&') : []) {
    const [key, value = ''] = part.split('=');
    if (key === 'tags') tags.push(...value.split(',').filter(Boolean).map((t) => decoded(t, `tag '${t}'`)));
    else if (key === 'serve') serve = decoded(value, `serve=${value}`);
    else throw new UserError(`--target: unknown LAVA option '${printable(key ?? '')}' (tags=a,b or serve=HOST:PORT)`, 2);
  }
  return { tags, serve };
}

/** A part of the address with its %XX escapes decoded; a malformed escape (`%zz`) is refused, naming the part (`what`: never the token itself). */
function decoded(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new UserError(`--target: ${printable(what)} holds a malformed %-escape (write a literal % as %25)`, 2);
  }
}

/** A LAVA address with everything between `://` and the last `@` (the token, and a user) masked as `***`. */
function maskToken(value: string): string {
  return value.replace(/^((?:--target=)?lava(?:\+https)?:\/\/).*@/, '$1***@');
}

/** Any URL given as --target, masked as maskToken does (a LAVA token typed after another scheme is still one). */
function maskAnyToken(value: string): string {
  return value.replace(/^([A-Za-z][\w+.-]*:\/\/).*@/, '$1***@');
}

/** The arguments with the token of any LAVA address masked, for the command line a run stores. */
export function redactLavaTokens(argv: readonly string[]): string[] {
  return argv.map(maskToken);
}
