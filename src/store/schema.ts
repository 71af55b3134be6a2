// One table for every record kind. Plain SQL that PostgreSQL and the embedded PGlite both run as is:
// text ids, text JSON payloads, bigint millisecond times; no engine-specific types or functions.
export const SCHEMA_VERSION = 1;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS auth_records (
  kind        text   NOT NULL,
  id          text   NOT NULL,
  payload     text   NOT NULL,
  grant_id    text,
  uid         text,
  account_id  text,
  expires_at  bigint,
  consumed_at bigint,
  PRIMARY KEY (kind, id)
);
CREATE INDEX IF NOT EXISTS auth_records_grant ON auth_records (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS auth_records_uid ON auth_records (kind, uid) WHERE uid IS NOT NULL;
CREATE INDEX IF NOT EXISTS auth_records_account ON auth_records (account_id) WHERE account_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS auth_records_expiry ON auth_records (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS auth_records_uid_expiry ON auth_records (kind, uid, expires_at) WHERE uid IS NOT NULL;
`;
