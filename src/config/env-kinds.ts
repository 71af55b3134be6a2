// The kinds of environment value: each pairs a zod type (blank counts as unset; numbers, booleans and
// URLs are checked with messages an operator can act on) with what docs/CONFIGURATION.md says of it.
// A kind given a default applies it, so the code that reads a value never writes the default again.
import { z } from 'zod';

/** A parsed value of type `T`, and how the reference documentation shows its type, range and default. */
export interface Kind<T> {
  readonly schema: z.ZodType<T>;
  /** For people: "integer", "URL", "`on` \| `off`"… */
  readonly type: string;
  /** Inclusive bounds of a number. */
  readonly range?: { readonly min: number; readonly max: number };
  /** Applied when the variable is unset or blank. */
  readonly default?: T;
  /** A secret: never quoted in a message; checked by the code that reads it. */
  readonly secret?: boolean;
}

/** A kind whose unset value reads as its default. */
export type Defaulted<T> = Kind<T> & { readonly default: T };

export const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** `schema` with unset read as `fallback`, when there is one. */
function defaulted<T>(schema: z.ZodType<T | undefined>, fallback: T | undefined): z.ZodType<T> {
  return (fallback === undefined ? schema : schema.transform((v) => v ?? fallback)) as z.ZodType<T>;
}

/** A number kind, whose bounds are known. */
export type Ranged<K> = K & { readonly range: { readonly min: number; readonly max: number } };

export function integer(min: number, max: number): Ranged<Kind<number | undefined>>;
export function integer(min: number, max: number, fallback: number): Ranged<Defaulted<number>>;
export function integer(min: number, max: number, fallback?: number): Kind<number | undefined> {
  const schema = z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .optional(),
  );
  return { schema: defaulted(schema, fallback), type: 'integer', range: { min, max }, default: fallback };
}

/** A finite number from `min` to `max`; its default, if any, is owned by the code that uses it. */
export function decimal(min: number, max: number): Ranged<Kind<number | undefined>> {
  const schema = z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .refine((n) => Number.isFinite(n), { error: 'must be a finite number' })
      .refine((n) => n >= min, { error: `must be at least ${min}` })
      .refine((n) => n <= max, { error: `must be at most ${max}` })
      .optional(),
  );
  return { schema, type: 'number', range: { min, max } };
}

export function text(): Kind<string | undefined>;
export function text(fallback: string): Defaulted<string>;
export function text(fallback?: string): Kind<string | undefined> {
  return { schema: defaulted(z.preprocess(blankToUndefined, z.string().optional()), fallback), type: 'string', default: fallback };
}

/** Read by hand (never through zod's messages) so that no problem ever quotes it. */
export function secret(): Kind<string | undefined> {
  return { schema: z.preprocess(blankToUndefined, z.string().optional()), type: 'secret', secret: true };
}

export function boolean(fallback: boolean): Defaulted<boolean> {
  const schema = z.preprocess(
    blankToUndefined,
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
      .optional()
      .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes'].includes(v))),
  );
  return { schema, type: 'boolean', default: fallback };
}

interface OneOfOptions {
  /** Ignore blanks around the value. */
  trim?: boolean;
  /** The refusal; default "must be one of <values>". */
  error?: string;
}

/** One of `values`, case-insensitive. */
export function oneOf<V extends string>(values: readonly [V, ...V[]], options: OneOfOptions): Kind<V | undefined>;
export function oneOf<V extends string>(values: readonly [V, ...V[]], options: OneOfOptions & { fallback: NoInfer<V> }): Defaulted<V>;
export function oneOf<V extends string>(values: readonly [V, ...V[]], { trim = false, error, fallback }: OneOfOptions & { fallback?: V }): Kind<V | undefined> {
  const schema = z.preprocess(
    (v) => (typeof blankToUndefined(v) === 'string' ? (trim ? String(v).trim() : String(v)).toLowerCase() : undefined),
    z.enum(values as readonly [V, ...V[]], { error: error ?? `must be one of ${values.join(', ')}` }).optional(),
  );
  return { schema: defaulted(schema as z.ZodType<V | undefined>, fallback), type: values.map((v) => `\`${v}\``).join(' \\| '), default: fallback };
}

/** An absolute http(s) URL; `example` shows one in the message that refuses anything else. */
const httpUrl = (example: string) => z.url({ protocol: /^https?$/, error: `must be an absolute http:// or https:// URL, e.g. ${example}` });

export function url(): Kind<string | undefined>;
export function url(fallback: string): Defaulted<string>;
export function url(fallback?: string): Kind<string | undefined> {
  return { schema: defaulted(z.preprocess(blankToUndefined, httpUrl('https://docs.example.com').optional()), fallback), type: 'URL', default: fallback };
}

// A provider's base URL is logged and named in tool notes, so it may not carry a secret: the key
// goes in *_API_KEY (sent as a bearer token). A query string would also end up before the path the
// client appends (`<url>/embeddings`).
export function providerUrl(): Kind<string | undefined> {
  const schema = z.preprocess(
    blankToUndefined,
    httpUrl('https://api.openai.com/v1')
      .refine((value) => {
        const u = new URL(value);
        return u.username === '' && u.password === '';
      }, 'must not carry a user name or password; put the key in the matching *_API_KEY variable')
      .refine((value) => {
        const u = new URL(value);
        return u.search === '' && u.hash === '';
      }, 'must be a base URL without a query string or fragment (the server appends /embeddings or /rerank); put a key in the matching *_API_KEY variable')
      .optional(),
  );
  return { schema, type: 'URL' };
}

/** The environment as loadConfig reads it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** One zod object over `kinds`, typed by each kind's value. */
export function parserOf<V extends Readonly<Record<string, Kind<unknown>>>>(kinds: V): z.ZodObject<{ [K in keyof V]: V[K]['schema'] }> {
  return z.object(Object.fromEntries(Object.entries(kinds).map(([name, kind]) => [name, kind.schema]))) as z.ZodObject<{ [K in keyof V]: V[K]['schema'] }>;
}

/** The items of a list variable, trimmed, blanks dropped. */
export const splitList = (value: string | undefined, separator: RegExp) =>
  (value ?? '').split(separator).map((item) => item.trim()).filter((item) => item !== '');
