/** A GitHub organisation as GitHub's API names it: `id` is permanent, `login` may be renamed and re-registered. */
export interface GithubOrg {
  id: number;
  /** Lower-cased. */
  login: string;
}

/** Who someone is upstream, as far as the allowlist cares. Only verified emails are listed. */
export interface UpstreamIdentity {
  /** The upstream's permanent id for the person: OpenID Connect `sub`, GitHub's numeric user id. */
  subject: string;
  /** Verified email addresses, lower-cased; the preferred (primary) one first. */
  verifiedEmails: string[];
  /** GitHub organisations the person belongs to; empty for OIDC providers. */
  githubOrgs: GithubOrg[];
  /** The ID token's `hd` claim, lower-cased: the Google Workspace domain that manages the account. */
  hostedDomain?: string | undefined;
  /** Display name, for logs and the consent page. */
  name?: string | undefined;
}

export interface AllowlistOptions {
  /** ALLOWED_EMAILS: exact addresses. */
  emails?: readonly string[];
  /** ALLOWED_EMAIL_DOMAINS: the part after `@`, e.g. `example.com` (subdomains are not included). */
  emailDomains?: readonly string[];
  /**
   * REQUIRE_HOSTED_DOMAIN: admission by an email domain also needs the `hd` claim (Google Workspace)
   * to be one of `emailDomains`, so a personal Google account opened with a work address does not
   * pass. Default false.
   */
  requireHostedDomain?: boolean;
  /** ALLOWED_GITHUB_ORGS: organisation logins. */
  githubOrgs?: readonly string[];
  /** ALLOW_ANY_LOGIN: admit anyone with a verified email. Default false. */
  allowAny?: boolean;
}

export type AllowlistDecision =
  | { allowed: true; accountId: string; because: string }
  | { allowed: false; reason: string };

/**
 * Decides who may sign in. A person is admitted when one verified email is listed, or has a listed
 * domain, or they belong to a listed GitHub organisation. The account id is an email: the first
 * verified one that matched, else the preferred one. Nobody without a verified email gets in.
 *
 * Organisations are matched by id, never by login: a login can be renamed and registered again by
 * someone else. `orgIds` maps each listed login to the id it stands for (see `github-org-pins.ts`);
 * a listed login without an id admits nobody.
 */
export function createAllowlist({ emails = [], emailDomains = [], requireHostedDomain = false, githubOrgs = [], allowAny = false }: AllowlistOptions) {
  const lower = (list: readonly string[]) => new Set(list.map((s) => s.trim().toLowerCase()).filter((s) => s !== ''));
  const allowedEmails = lower(emails);
  const allowedDomains = lower(emailDomains.map((d) => d.replace(/^@/, '')));
  const allowedOrgs = lower(githubOrgs);
  if (!allowAny && allowedEmails.size + allowedDomains.size + allowedOrgs.size === 0) {
    throw new TypeError('the allowlist is empty: set ALLOWED_EMAILS, ALLOWED_EMAIL_DOMAINS or ALLOWED_GITHUB_ORGS, or ALLOW_ANY_LOGIN=true');
  }
  if (requireHostedDomain && allowedDomains.size === 0) {
    throw new TypeError('REQUIRE_HOSTED_DOMAIN needs ALLOWED_EMAIL_DOMAINS: it checks the `hd` claim against those domains');
  }

  function decide(identity: UpstreamIdentity, orgIds: ReadonlyMap<string, number> = new Map()): AllowlistDecision {
    const verified = identity.verifiedEmails.map((e) => e.toLowerCase());
    const preferred = verified[0];
    if (preferred === undefined) {
      return { allowed: false, reason: 'the upstream account has no verified email address' };
    }
    const byEmail = verified.find((e) => allowedEmails.has(e));
    if (byEmail !== undefined) return { allowed: true, accountId: byEmail, because: 'email' };
    const byDomain = verified.find((e) => allowedDomains.has(e.slice(e.lastIndexOf('@') + 1)));
    const hostedDomain = identity.hostedDomain?.toLowerCase();
    if (byDomain !== undefined && (!requireHostedDomain || (hostedDomain !== undefined && allowedDomains.has(hostedDomain)))) {
      return { allowed: true, accountId: byDomain, because: 'email domain' };
    }
    const allowedIds = new Map([...orgIds].filter(([login]) => allowedOrgs.has(login)).map(([login, id]) => [id, login]));
    const org = identity.githubOrgs.find((o) => allowedIds.has(o.id));
    if (org !== undefined) return { allowed: true, accountId: preferred, because: `GitHub organisation ${allowedIds.get(org.id)} (id ${org.id})` };
    if (allowAny) return { allowed: true, accountId: preferred, because: 'ALLOW_ANY_LOGIN' };
    if (byDomain !== undefined) {
      return { allowed: false, reason: `${byDomain} is in an allowed domain, but the account is not managed by it (hd ${hostedDomain ?? 'absent'})` };
    }
    return { allowed: false, reason: `${preferred} is not on this server's allowlist` };
  }
  return Object.assign(decide, {
    /** The listed organisation logins, lower-cased. */
    githubOrgs: [...allowedOrgs] as readonly string[],
  });
}

export type Allowlist = ReturnType<typeof createAllowlist>;
