/**
 * The kernels and initramfs images of a LAVA design, served over HTTP by
 * hintlab itself for a lab whose worker is another machine
 * (`lava://...?serve=HOST:PORT`: HOST is this machine as the worker reaches
 * it). Only the files a job names are served, each under a path made from
 * its content's hash, read-only, for as long as the design runs; `close`
 * ends the server and every connection to it.
 */
import { createReadStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { UserError } from '../../errors.ts';
import { fileSha256 } from './job.ts';

export interface FileServer {
  /** The URL the worker downloads `path` from (the file is registered on the first call). */
  url(path: string): string;
  close(): Promise<void>;
}

export async function serveFiles(hostPort: string): Promise<FileServer> {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(hostPort);
  if (!m) throw new UserError(`--target ...?serve=${hostPort}: give HOST:PORT, this machine as the LAVA worker reaches it (e.g. serve=10.0.0.5:8765)`, 2);
  const host = m[1]!.replace(/^\[|\]$/g, '');
  const files = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const path = req.method === 'GET' || req.method === 'HEAD' ? files.get(req.url ?? '') : undefined;
    if (!path) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(path).on('error', () => res.destroy()).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new UserError(`cannot serve the kernels for LAVA on ${hostPort}: ${err.code ?? err.message}; give another serve=HOST:PORT`, 2)));
    server.listen(Number(m[2]), host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url(path) {
      const name = `/${fileSha256(path).slice(0, 16)}/${encodeURIComponent(basename(path))}`;
      files.set(name, path);
      return `http://${shown}:${port}${name}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
