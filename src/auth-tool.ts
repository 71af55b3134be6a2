// Operator tool for the built-in authorization server, run beside the server on the same AUTH_DATA_DIR
// (SQLite in WAL mode lets both open the file):
//
//   npm run auth -- grants              who is signed in, by client
//   npm run auth -- revoke <email>      end that person's access now
//
// In the container: `node dist/src/auth-tool.js grants`. Like main.ts, an entry point: it may use the console.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadAuthDataDir } from './config/login.js';
import { loadDatabaseUrl } from './config/secrets.js';
import { openPostgresStore } from './store/open-postgres-store.js';
import { openStore } from './store/open-store.js';

const USAGE = 'usage: npm run auth -- grants | revoke <email>';

async function run(args: string[]): Promise<number> {
  const [command, target] = args;
  if (command !== 'grants' && command !== 'revoke') {
    console.error(USAGE);
    return 2;
  }
  if (command === 'revoke' && (target === undefined || !target.includes('@'))) {
    console.error(`revoke needs the email address of the person, e.g. npm run auth -- revoke ada@example.com\n${USAGE}`);
    return 2;
  }
  // Where the server keeps them: the shared PostgreSQL when DATABASE_URL is set, else AUTH_DATA_DIR.
  const databaseUrl = loadDatabaseUrl();
  const dataDir = databaseUrl === undefined ? resolve(loadAuthDataDir()) : 'the PostgreSQL of DATABASE_URL';
  // Opening the embedded store creates it: a mistyped or missing AUTH_DATA_DIR would then report
  // "no one is signed in" about a new, empty store, and leave it behind.
  if (databaseUrl === undefined && !existsSync(join(dataDir, 'auth.sqlite'))) {
    console.error(
      `no sign-in store at ${dataDir} (no auth.sqlite there). Set AUTH_DATA_DIR to the folder the server uses, ` +
        'e.g. AUTH_DATA_DIR=/data npm run auth -- grants, or DATABASE_URL when the server keeps its records in PostgreSQL.',
    );
    return 1;
  }
  const store = databaseUrl === undefined ? await openStore({ dataDir }) : await openPostgresStore({ databaseUrl });
  try {
    if (command === 'revoke') {
      const account = target!.toLowerCase();
      // Counted before deleting: deleteAccount's count is of every record (grants, tokens, sessions),
      // which is not the number of sign-ins `grants` lists.
      const grants = (await store.list('Grant')).filter((grant) => grant.accountId === account).length;
      const removed = await store.deleteAccount(account);
      console.log(removed === 0
        ? `${account}: nothing to revoke (no grant, token or session in ${dataDir})`
        : `${account}: access revoked: ${grants} grant${grants === 1 ? '' : 's'} ended (${removed} stored records deleted: grants, tokens and sessions); their access tokens fail at the next request`);
      return 0;
    }
    const grants = await store.list('Grant');
    if (grants.length === 0) {
      console.log(`no one is signed in (${dataDir})`);
      return 0;
    }
    const rows = [];
    for (const grant of grants) {
      const clientId = String(grant.payload.clientId ?? '');
      const client = clientId === '' ? undefined : await store.get('Client', clientId);
      const clientName = typeof client?.payload.client_name === 'string' ? client.payload.client_name : '';
      const issuedAt = typeof grant.payload.iat === 'number' ? new Date(grant.payload.iat * 1000).toISOString() : '';
      rows.push({ account: grant.accountId ?? '', client: clientName || clientId, client_id: clientId, signed_in: issuedAt, expires: grant.expiresAt ? new Date(grant.expiresAt).toISOString() : '' });
    }
    rows.sort((a, b) => a.account.localeCompare(b.account) || a.client.localeCompare(b.client));
    console.table(rows);
    return 0;
  } finally {
    await store.close();
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`auth: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
