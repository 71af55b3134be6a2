import { generateState, OAuth2Client } from 'arctic';
import type { UpstreamIdentity } from './allowlist.js';
import { UpstreamLoginError } from './upstream-login.js';
import type { UpstreamLogin } from './upstream-login.js';

export interface GithubUpstreamOptions {
  clientId: string;
  clientSecret: string;
  /** PUBLIC_URL + `/oauth/callback`, the OAuth app's callback URL. */
  redirectUri: string;
  /** LOGIN_GITHUB_URL: `https://github.com`, or a GitHub Enterprise Server origin. */
  webUrl: string;
  /** LOGIN_GITHUB_API_URL: `https://api.github.com`, or `https://<host>/api/v3`. */
  apiUrl: string;
  /** Whether organisation membership is needed (asks for the read:org scope). */
  readOrgs: boolean;
  /** Timeout of each API call, ms. Default 10000. */
  timeoutMs?: number;
}

interface GithubEmail { email: string; verified: boolean; primary: boolean }
interface GithubUser { id?: number; login?: string; name?: string | null }

/** GitHub answers at most 100 items a page; past this many pages the answer is refused, not cut. */
const MAX_PAGES = 50;

/** The `rel="next"` URL of an RFC 8288 Link header, as GitHub paginates. */
function nextPage(link: string | null): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const url = /<([^>]*)>/.exec(part)?.[1];
    const rel = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(part)?.[1];
    if (url !== undefined && rel?.trim().split(/\s+/).includes('next')) return url;
  }
  return undefined;
}

/**
 * GitHub, which is not OpenID Connect, through arctic's OAuth 2.0 client: an OAuth app's code is
 * exchanged once and the token reads the user's id and verified emails. When the allowlist names
 * organisations it also reads every page of the user's organisations (ids and logins), and the token
 * is handed back as the re-check credential: GitHub OAuth app tokens do not refresh, but they last
 * until revoked, so membership can be read again on each refresh of ours.
 */
export function createGithubUpstream({ clientId, clientSecret, redirectUri, webUrl, apiUrl, readOrgs, timeoutMs = 10_000 }: GithubUpstreamOptions): UpstreamLogin {
  const oauth = new OAuth2Client(clientId, clientSecret, redirectUri);
  const web = webUrl.replace(/\/+$/, '');
  const api = apiUrl.replace(/\/+$/, '');
  const apiOrigin = new URL(api).origin;
  const scopes = readOrgs ? ['read:user', 'user:email', 'read:org'] : ['read:user', 'user:email'];

  const request = async (accessToken: string, url: string, path: string): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'corpus-mcp' },
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      throw new UpstreamLoginError('upstream_unavailable', `GitHub API ${path} failed: ${(error as Error).message}`, { cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel();
      const code = response.status >= 500 || response.status === 429 ? 'upstream_unavailable' : 'upstream_refused';
      throw new UpstreamLoginError(code, `GitHub API ${path} answered HTTP ${response.status}`);
    }
    return response;
  };
  const get = async <T>(accessToken: string, path: string): Promise<T> => (await (await request(accessToken, `${api}${path}`, path)).json()) as T;
  /** Every page of a list, following the Link header's `next` (on the API's own origin only: it carries the token). */
  const getAll = async <T>(accessToken: string, path: string): Promise<T[]> => {
    const items: T[] = [];
    let url: string | undefined = `${api}${path}`;
    for (let page = 1; url !== undefined; page++) {
      if (page > MAX_PAGES) throw new UpstreamLoginError('upstream_refused', `GitHub API ${path} has more than ${MAX_PAGES} pages`);
      const response = await request(accessToken, url, path);
      const next = nextPage(response.headers.get('link'));
      const body = (await response.json()) as unknown;
      if (!Array.isArray(body)) throw new UpstreamLoginError('upstream_refused', `GitHub API ${path} did not answer a list`);
      items.push(...(body as T[]));
      url = next === undefined ? undefined : new URL(next, url).href;
      if (url !== undefined && new URL(url).origin !== apiOrigin) {
        throw new UpstreamLoginError('upstream_refused', `GitHub API ${path} pointed its next page at another origin (${new URL(url).origin})`);
      }
    }
    return items;
  };

  const identify = async (accessToken: string): Promise<UpstreamIdentity> => {
    const [user, emails, orgs] = await Promise.all([
      get<GithubUser>(accessToken, '/user'),
      get<GithubEmail[]>(accessToken, '/user/emails'),
      readOrgs ? getAll<{ id?: unknown; login?: unknown }>(accessToken, '/user/orgs?per_page=100') : Promise.resolve([]),
    ]);
    if (typeof user.id !== 'number') throw new UpstreamLoginError('upstream_refused', 'GitHub API /user answered without the user\'s id');
    const verified = emails.filter((e) => e.verified === true && typeof e.email === 'string');
    verified.sort((a, b) => Number(b.primary) - Number(a.primary));
    return {
      subject: String(user.id),
      verifiedEmails: verified.map((e) => e.email.toLowerCase()),
      githubOrgs: orgs.flatMap((o) => (typeof o.id === 'number' && typeof o.login === 'string' ? [{ id: o.id, login: o.login.toLowerCase() }] : [])),
      name: user.name ?? user.login,
    };
  };

  return {
    provider: 'github',
    async start() {
      const state = generateState();
      return { url: oauth.createAuthorizationURL(`${web}/login/oauth/authorize`, state, scopes), state, saved: {} };
    },
    async finish(callbackUrl) {
      const code = callbackUrl.searchParams.get('code');
      if (code === null) {
        throw new UpstreamLoginError('upstream_refused', `GitHub returned no code (${callbackUrl.searchParams.get('error') ?? 'no error given'})`);
      }
      let accessToken: string;
      try {
        accessToken = (await oauth.validateAuthorizationCode(`${web}/login/oauth/access_token`, code, null)).accessToken();
      } catch (error) {
        throw new UpstreamLoginError('upstream_refused', `GitHub did not accept the sign-in code: ${(error as Error).message}`, { cause: error });
      }
      return { identity: await identify(accessToken), ...(readOrgs ? { recheckCredential: accessToken } : {}) };
    },
    recheck: identify,
  };
}
