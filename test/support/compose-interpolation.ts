// The part of Compose's variable interpolation this project's compose files use: ${NAME}, ${NAME:-default},
// ${NAME-default}, ${NAME:?message} and ${NAME?message}, and $$ for a literal dollar. Compose rejects any
// other `$`, so `dollarsComposeRejects` lists them.

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g;

export interface Reference {
  name: string;
  /** '-' (default), '?' (required) or undefined (plain). */
  operator: '-' | '?' | undefined;
  /** The default, or the error message. */
  text: string;
}

export function references(value: string): Reference[] {
  return [...value.matchAll(REFERENCE)].map((m) => ({ name: m[1]!, operator: m[3] as Reference['operator'], text: m[4] ?? '' }));
}

/** Substitutes like `docker compose config`; throws naming the variable a `?` reference demands. */
export function interpolate(value: string, vars: Readonly<Record<string, string | undefined>>): string {
  return value.replace(REFERENCE, (_all, name: string, colon: string | undefined, operator: string | undefined, text: string | undefined) => {
    const set = vars[name];
    const missing = colon === ':' ? set === undefined || set === '' : set === undefined;
    if (!missing) return set!;
    if (operator === '?') throw new Error(`required variable ${name} is missing a value: ${text}`);
    return operator === '-' ? (text ?? '') : '';
  }).replaceAll('$$', '$');
}

/** Every `$` that is neither a ${…} reference nor an escaped $$: `docker compose` refuses the file. */
export function dollarsComposeRejects(value: string): string[] {
  return [...value.replace(REFERENCE, '').replaceAll('$$', '').matchAll(/\$.{0,10}/g)].map((m) => m[0]);
}
