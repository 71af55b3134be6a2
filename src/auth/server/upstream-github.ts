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

/**
 * GitHub, which is not OpenID Connect, through arctic's OAuth 2.0 client: an OAuth app's code is
 * exchanged once, the token reads the user's verified emails (and organisations when the allowlist
 * names some), and is then dropped. GitHub OAuth app tokens do not refresh and are never stored.
 */
export function createGithubUpstream({ clientId, clientSecret, redirectUri, webUrl, apiUrl, readOrgs, timeoutMs = 10_000 }: GithubUpstreamOptions): UpstreamLogin {
  const oauth = new OAuth2Client(clientId, clientSecret, redirectUri);
  const web = webUrl.replace(/\/+$/, '');
  const api = apiUrl.replace(/\/+$/, '');
  const scopes = readOrgs ? ['read:user', 'user:email', 'read:org'] : ['read:user', 'user:email'];

  const get = async <T>(accessToken: string, path: string): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${api}${path}`, {
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'corpus-mcp' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new UpstreamLoginError('upstream_unavailable', `GitHub API ${path} failed: ${(error as Error).message}`, { cause: error });
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new UpstreamLoginError('upstream_refused', `GitHub API ${path} answered HTTP ${response.status}`);
    }
    return (await response.json()) as T;
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
      const [user, emails, orgs] = await Promise.all([
        get<{ login?: string; name?: string | null }>(accessToken, '/user'),
        get<GithubEmail[]>(accessToken, '/user/emails'),
        readOrgs ? get<{ login: string }[]>(accessToken, '/user/orgs?per_page=100') : Promise.resolve([]),
      ]);
      const verified = emails.filter((e) => e.verified === true && typeof e.email === 'string');
      verified.sort((a, b) => Number(b.primary) - Number(a.primary));
      const identity: UpstreamIdentity = {
        verifiedEmails: verified.map((e) => e.email.toLowerCase()),
        githubOrgs: orgs.map((o) => o.login.toLowerCase()),
        name: user.name ?? user.login,
      };
      return identity;
    },
  };
}
