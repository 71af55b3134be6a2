// Opaque pagination cursors for list_documents and resources/list. The index never changes while the
// process runs, so a position in the sorted list is a stable cursor; it is wrapped so that callers
// treat it as opaque and a hand-made or stale one is recognised.

const PREFIX = 'p1:';

export function encodeCursor(position: number): string {
  return Buffer.from(`${PREFIX}${position}`, 'utf8').toString('base64url');
}

/** The position a cursor stands for, or undefined if this server did not issue it. */
export function decodeCursor(cursor: string): number | undefined {
  if (cursor.length > 64) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!decoded.startsWith(PREFIX)) return undefined;
  const digits = decoded.slice(PREFIX.length);
  if (!/^(0|[1-9][0-9]{0,9})$/.test(digits)) return undefined;
  return Number(digits);
}
