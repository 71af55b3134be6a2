// The zod types of environment values: blank counts as unset; numbers, booleans and URLs are checked
// with messages an operator can act on.
import { z } from 'zod';

export const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

export const integer = (min: number, max: number) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .optional(),
  );

export const decimal = (min: number, max: number, minExclusive = false) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .refine((n) => Number.isFinite(n), { error: 'must be a finite number' })
      .refine((n) => (minExclusive ? n > min : n >= min), {
        error: minExclusive ? `must be greater than ${min}` : `must be at least ${min}`,
      })
      .refine((n) => n <= max, { error: `must be at most ${max}` })
      .optional(),
  );

export const text = z.preprocess(blankToUndefined, z.string().optional());

export const boolean = z.preprocess(
  blankToUndefined,
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? undefined : ['true', '1', 'yes'].includes(v))),
);

/** An absolute http(s) URL; `example` shows one in the message that refuses anything else. */
export const httpUrl = (example: string) => z.url({ protocol: /^https?$/, error: `must be an absolute http:// or https:// URL, e.g. ${example}` });

export const url = z.preprocess(blankToUndefined, httpUrl('https://docs.example.com').optional());

// A provider's base URL is logged and named in tool notes, so it may not carry a secret: the key
// goes in *_API_KEY (sent as a bearer token). A query string would also end up before the path the
// client appends (`<url>/embeddings`).
export const providerUrl = z.preprocess(
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
