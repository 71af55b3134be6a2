/** Who someone is upstream, as far as the allowlist cares. Only verified emails are listed. */
export interface UpstreamIdentity {
  /** Verified email addresses, lower-cased; the preferred (primary) one first. */
  verifiedEmails: string[];
  /** GitHub organisations the person belongs to (logins, lower-cased); empty for OIDC providers. */
  githubOrgs: string[];
  /** Display name, for logs and the consent page. */
  name?: string | undefined;
}

export interface AllowlistOptions {
  /** ALLOWED_EMAILS: exact addresses. */
  emails?: readonly string[];
  /** ALLOWED_EMAIL_DOMAINS: the part after `@`, e.g. `example.com` (subdomains are not included). */
  emailDomains?: readonly string[];
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
 */
export function createAllowlist({ emails = [], emailDomains = [], githubOrgs = [], allowAny = false }: AllowlistOptions) {
  const lower = (list: readonly string[]) => new Set(list.map((s) => s.trim().toLowerCase()).filter((s) => s !== ''));
  const allowedEmails = lower(emails);
  const allowedDomains = lower(emailDomains.map((d) => d.replace(/^@/, '')));
  const allowedOrgs = lower(githubOrgs);
  if (!allowAny && allowedEmails.size + allowedDomains.size + allowedOrgs.size === 0) {
    throw new TypeError('the allowlist is empty: set ALLOWED_EMAILS, ALLOWED_EMAIL_DOMAINS or ALLOWED_GITHUB_ORGS, or ALLOW_ANY_LOGIN=true');
  }

  return function decide(identity: UpstreamIdentity): AllowlistDecision {
    const verified = identity.verifiedEmails.map((e) => e.toLowerCase());
    const preferred = verified[0];
    if (preferred === undefined) {
      return { allowed: false, reason: 'the upstream account has no verified email address' };
    }
    const byEmail = verified.find((e) => allowedEmails.has(e));
    if (byEmail !== undefined) return { allowed: true, accountId: byEmail, because: 'email' };
    const byDomain = verified.find((e) => allowedDomains.has(e.slice(e.lastIndexOf('@') + 1)));
    if (byDomain !== undefined) return { allowed: true, accountId: byDomain, because: 'email domain' };
    const org = identity.githubOrgs.map((o) => o.toLowerCase()).find((o) => allowedOrgs.has(o));
    if (org !== undefined) return { allowed: true, accountId: preferred, because: `GitHub organisation ${org}` };
    if (allowAny) return { allowed: true, accountId: preferred, because: 'ALLOW_ANY_LOGIN' };
    return { allowed: false, reason: `${preferred} is not on this server's allowlist` };
  };
}

export type Allowlist = ReturnType<typeof createAllowlist>;
