// A Hugging Face hub stand-in on loopback, for the tests of model downloads.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A Hugging Face hub stand-in serving `modelsDir`'s files at /<owner>/<name>/resolve/main/<file>, recording each request. */
export async function startHub(modelsDir: string | undefined): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const match = /^\/([^/]+\/[^/]+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    try {
      if (modelsDir === undefined || match === null) throw new Error('not found');
      const body = readFileSync(join(modelsDir, match[1]!, match[2]!));
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

