// Opaque pagination cursors for list_documents and resources/list. A cursor names a position in one
// listing (which list, which path_prefix) of one index generation, and carries a check value over
// all of that, so that:
// - a cursor of an older generation (the corpus was reloaded meanwhile, positions may have moved)
//   is recognised as stale, and the caller is told to list again;
// - a hand-made or altered cursor, or one from another listing (another path_prefix), is refused.
// The check value is keyed on the index's content, not on this process, so replicas serving the same
// corpus at the same generation accept each other's cursors.
import { createHash } from 'node:crypto';
import type { SearchIndex } from '../../search/search-index.js';

const VERSION = 'c2';
const MAX_CURSOR_CHARS = 200;

/** What a cursor is valid for. */
export interface CursorScope {
  index: SearchIndex;
  generation: number;
  /** The listing, e.g. `list_documents:guides/` or `resources/list`. */
  listing: string;
}

export type CursorCheck =
  | { ok: true; position: number }
  | { ok: false; reason: 'stale'; issuedGeneration: number }
  | { ok: false; reason: 'foreign' };

const fingerprints = new WeakMap<SearchIndex, string>();

/** A digest of what the index lists (sources, sizes, chunk counts), computed once per index. */
function fingerprintOf(index: SearchIndex): string {
  let fingerprint = fingerprints.get(index);
  if (fingerprint === undefined) {
    const hash = createHash('sha256');
    for (const d of index.listDocuments()) hash.update(`${d.source}\0${d.bytes}\0${d.chunks}\n`);
    fingerprint = hash.digest('base64url');
    fingerprints.set(index, fingerprint);
  }
  return fingerprint;
}

function checkValue(scope: CursorScope, position: number): string {
  return createHash('sha256').update(`${fingerprintOf(scope.index)}\0${scope.listing}\0${scope.generation}\0${position}`).digest('base64url').slice(0, 16);
}

export function encodeCursor(position: number, scope: CursorScope): string {
  return Buffer.from(`${VERSION}.${scope.generation}.${position}.${checkValue(scope, position)}`, 'utf8').toString('base64url');
}

/** Whether `cursor` was issued for `scope`, and the position it stands for. */
export function decodeCursor(cursor: string, scope: CursorScope): CursorCheck {
  if (cursor.length > MAX_CURSOR_CHARS) return { ok: false, reason: 'foreign' };
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  const [version, generation, position, check] = parts;
  if (parts.length !== 4 || version !== VERSION || !/^[1-9][0-9]{0,9}$/.test(generation ?? '') || !/^(0|[1-9][0-9]{0,9})$/.test(position ?? '')) {
    return { ok: false, reason: 'foreign' };
  }
  if (Number(generation) !== scope.generation) return { ok: false, reason: 'stale', issuedGeneration: Number(generation) };
  if (check !== checkValue(scope, Number(position))) return { ok: false, reason: 'foreign' };
  return { ok: true, position: Number(position) };
}

/** The words for a refused cursor: what went wrong and what to do. */
export function cursorProblem(check: Exclude<CursorCheck, { ok: true }>, cursor: string, generation: number, how: string): string {
  const shown = cursor.length > 80 ? `${cursor.slice(0, 77)}...` : cursor;
  return check.reason === 'stale'
    ? `cursor "${shown}" is stale: the corpus was reloaded since it was issued (index generation ${check.issuedGeneration}, now ${generation}), ` +
        `so positions may have moved. List again from the first page: ${how}.`
    : `cursor "${shown}" was not issued by this server for this listing. ${how}.`;
}
