import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubUpstream } from './upstream-github.js';
import { UpstreamLoginError } from './upstream-login.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(handler: Handler): Promise<{ url: string; server: Server; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.url} ${req.headers.authorization ?? ''}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen };
}

const json = (res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('createGithubUpstream > recheck', () => {
  const orgs = Array.from({ length: 250 }, (_, i) => ({ id: 1000 + i, login: `Org-${i}` }));
  let api: Awaited<ReturnType<typeof listen>>;
  let elsewhere: Awaited<ReturnType<typeof listen>>;
  let mode: 'pages' | 'foreign-next' | 'unauthorized' | 'down' = 'pages';

  beforeAll(async () => {
    elsewhere = await listen((_req, res) => json(res, []));
    api = await listen((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (mode === 'unauthorized') return json(res, { message: 'Bad credentials' }, 401);
      if (mode === 'down') return json(res, { message: 'unavailable' }, 503);
      if (url.pathname === '/user') return json(res, { id: 42, login: 'ada', name: 'Ada' });
      if (url.pathname === '/user/emails') return json(res, [{ email: 'Ada@Example.com', verified: true, primary: true }]);
      const page = Number(url.searchParams.get('page') ?? 1);
      const next = mode === 'foreign-next' ? `${elsewhere.url}/user/orgs?page=2` : `${api.url}/user/orgs?per_page=100&page=${page + 1}`;
      const link: Record<string, string> = page < 3 ? { link: `<${api.url}/user/orgs?per_page=100&page=3>; rel="last", <${next}>; rel="next"` } : {};
      return json(res, orgs.slice((page - 1) * 100, page * 100), 200, link);
    });
  });
  afterAll(() => {
    api.server.close();
    elsewhere.server.close();
  });

  const upstream = () =>
    createGithubUpstream({ clientId: 'id', clientSecret: 'secret', redirectUri: 'http://127.0.0.1/cb', webUrl: api.url, apiUrl: api.url, readOrgs: true });

  it('reads every page of the organisations through the Link header, with ids and lower-cased logins', async () => {
    mode = 'pages';
    const identity = await upstream().recheck!('gho_token');
    expect(identity).toMatchObject({ subject: '42', verifiedEmails: ['ada@example.com'] });
    expect(identity.githubOrgs).toHaveLength(250);
    expect(identity.githubOrgs[249]).toEqual({ id: 1249, login: 'org-249' });
  });

  it('refuses a next page on another origin, and never sends the token there', async () => {
    mode = 'foreign-next';
    const before = elsewhere.seen.length;
    await expect(upstream().recheck!('gho_token')).rejects.toMatchObject({ code: 'upstream_refused', message: expect.stringContaining('another origin') });
    expect(elsewhere.seen.length).toBe(before);
  });

  it.each([
    ['unauthorized', 'upstream_refused'],
    ['down', 'upstream_unavailable'],
  ] as const)('answers %s with %s', async (state, code) => {
    mode = state;
    const error = await upstream().recheck!('gho_token').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamLoginError);
    expect((error as UpstreamLoginError).code).toBe(code);
  });
});
