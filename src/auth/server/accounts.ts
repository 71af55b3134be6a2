import { compactDecrypt, CompactEncrypt } from 'jose';
import { silentLogger } from '../../logger.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/store.js';
import type { Allowlist, AllowlistDecision, GithubOrg, UpstreamIdentity } from './allowlist.js';
import { createGithubOrgPins } from './github-org-pins.js';
import { UpstreamLoginError } from './upstream-login.js';
import type { UpstreamLogin, UpstreamSignIn } from './upstream-login.js';

/** The store kind of an account: id = the account id (an email), payload = what it was admitted on. */
const ACCOUNT_KIND = 'Account';

export interface AccountsOptions {
  store: Store;
  allowlist: Allowlist;
  upstream: UpstreamLogin;
  /** How long an account is kept after its latest sign-in, seconds: REFRESH_TOKEN_TTL, as long as its grants live. */
  ttlSeconds: number;
  /** AES-256 key (keys.ts) that encrypts the upstream re-check credential at rest. */
  credentialKey: Uint8Array;
  logger?: Logger;
}

const strings = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const orgs = (value: unknown): GithubOrg[] =>
  Array.isArray(value)
    ? value.flatMap((o: { id?: unknown; login?: unknown }) => (typeof o?.id === 'number' && typeof o.login === 'string' ? [{ id: o.id, login: o.login }] : []))
    : [];

/**
 * The people the server has signed in, and whether each may still use it. At sign-in the upstream
 * identity (subject, verified emails, GitHub organisation ids, `hd`) is kept with the account; from
 * then on every use is decided again by the allowlist of the running configuration:
 *
 * - each access token (issued-token-verifier), each refresh and code exchange (`findAccount`), and a
 *   browser's sign-in session (the login check of authorization-server.ts), against what was kept;
 * - on refresh, for GitHub organisations, against what GitHub says now: the person's token (kept
 *   encrypted, used for nothing else) reads their organisations again, so leaving the organisation
 *   ends access within one access-token lifetime.
 */
export function createAccounts({ store, allowlist, upstream, ttlSeconds, credentialKey, logger = silentLogger }: AccountsOptions) {
  const pins = createGithubOrgPins(store, allowlist.githubOrgs, logger);

  // The account id is in the authenticated header: a credential copied onto another account's record
  // does not decrypt as that account's.
  const seal = (credential: string, accountId: string) =>
    new CompactEncrypt(new TextEncoder().encode(credential)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', sub: accountId }).encrypt(credentialKey);
  const open = async (sealed: string, accountId: string) => {
    const { plaintext, protectedHeader } = await compactDecrypt(sealed, credentialKey, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
    if (protectedHeader.sub !== accountId) throw new TypeError('the kept credential belongs to another account');
    return new TextDecoder().decode(plaintext);
  };

  return {
    /** At sign-in: the current allowlist's decision; an admitted person's identity is kept under their account id. */
    async admit({ identity, recheckCredential }: UpstreamSignIn): Promise<AllowlistDecision> {
      const decision = allowlist(identity, await pins.pin(identity.githubOrgs));
      if (!decision.allowed) return decision;
      const { accountId } = decision;
      await store.put(
        ACCOUNT_KIND,
        accountId,
        {
          provider: upstream.provider,
          subject: identity.subject,
          verifiedEmails: identity.verifiedEmails,
          githubOrgs: identity.githubOrgs,
          ...(identity.hostedDomain !== undefined ? { hostedDomain: identity.hostedDomain } : {}),
          ...(recheckCredential !== undefined ? { credential: await seal(recheckCredential, accountId) } : {}),
        },
        { accountId, expiresAt: Date.now() + ttlSeconds * 1000 },
      );
      return decision;
    },

    /**
     * Whether `accountId` may still use the server, by the current allowlist. With `recheckUpstream`
     * (a refresh), a kept upstream credential first reads the identity again, and the answer is kept.
     * Throws UpstreamLoginError `upstream_unavailable` when the upstream cannot be asked: not the
     * person's fault, so not a refusal.
     */
    async standing(accountId: string, { recheckUpstream = false }: { recheckUpstream?: boolean } = {}): Promise<AllowlistDecision> {
      const record = await store.get(ACCOUNT_KIND, accountId);
      if (record === undefined) {
        // Signed in before accounts were kept: the account id is the verified email that was admitted.
        return allowlist({ subject: '', verifiedEmails: [accountId], githubOrgs: [] }, await pins.read());
      }
      const kept = record.payload;
      if (kept.provider !== upstream.provider) {
        return { allowed: false, reason: `${accountId} signed in through ${String(kept.provider)}, not ${upstream.provider}` };
      }
      let identity: UpstreamIdentity = {
        subject: String(kept.subject),
        verifiedEmails: strings(kept.verifiedEmails),
        githubOrgs: orgs(kept.githubOrgs),
        hostedDomain: typeof kept.hostedDomain === 'string' ? kept.hostedDomain : undefined,
      };
      if (recheckUpstream && typeof kept.credential === 'string' && upstream.recheck !== undefined) {
        let fresh: UpstreamIdentity;
        try {
          fresh = await upstream.recheck(await open(kept.credential, accountId));
        } catch (error) {
          if (error instanceof UpstreamLoginError && error.code === 'upstream_unavailable') throw error;
          return { allowed: false, reason: `${accountId}'s ${upstream.provider} account could not be read again: ${(error as Error).message}` };
        }
        if (fresh.subject !== identity.subject) return { allowed: false, reason: `${accountId}'s ${upstream.provider} credential now names another person` };
        identity = { ...identity, verifiedEmails: fresh.verifiedEmails, githubOrgs: fresh.githubOrgs };
        await store.put(ACCOUNT_KIND, accountId, { ...kept, verifiedEmails: identity.verifiedEmails, githubOrgs: identity.githubOrgs }, { accountId, expiresAt: record.expiresAt });
      }
      return allowlist(identity, await pins.read());
    },
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
