import type { Logger } from '../../logger.js';
import { silentLogger } from '../../logger.js';
import type { Store } from '../../store/store.js';
import type { GithubOrg } from './allowlist.js';

/** The store kind of a pin: id = the listed login (lower-cased), payload `{ id }`. */
const PIN_KIND = 'GithubOrgPin';

/**
 * The ids the logins of ALLOWED_GITHUB_ORGS stand for. An organisation's login can be renamed and then
 * registered again by anyone, so the allowlist compares ids: the first sign-in that shows a listed
 * login pins its id in the store, shared by every replica and kept across restarts, and from then on
 * only that organisation admits, whatever it is called. Pins never expire: there is at most one per
 * listed login, and an expired pin would open the re-registration window again.
 */
export function createGithubOrgPins(store: Store, logins: readonly string[], logger: Logger = silentLogger) {
  // A pin never changes once written, so a found one is kept; a missing one is read again next time
  // (another replica may have written it).
  const known = new Map<string, number>();

  async function read(): Promise<Map<string, number>> {
    for (const login of logins) {
      if (known.has(login)) continue;
      const id = (await store.get(PIN_KIND, login))?.payload.id;
      if (typeof id === 'number') known.set(login, id);
    }
    return new Map(known);
  }

  return {
    /** The pinned ids of the listed logins, by login. */
    read,
    /** The same, after pinning each listed login that `orgs` shows and that has no id yet. */
    async pin(orgs: readonly GithubOrg[]): Promise<ReadonlyMap<string, number>> {
      const pins = await read();
      for (const login of logins) {
        const org = orgs.find((o) => o.login === login);
        if (org === undefined || pins.has(login)) continue;
        await store.put(PIN_KIND, login, { id: org.id });
        known.set(login, org.id);
        pins.set(login, org.id);
        logger.info({ github_org: login, github_org_id: org.id }, 'GitHub organisation pinned to its id');
      }
      return pins;
    },
  };
}

export type GithubOrgPins = ReturnType<typeof createGithubOrgPins>;
