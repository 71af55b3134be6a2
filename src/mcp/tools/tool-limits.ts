// How much one tool call may ask for. Each bound keeps a single answer cheap to compute and well under
// the 25,000 tokens a client such as Claude Code accepts for a tool result; operators can tighten them
// (or loosen them for private deployments) through config. Built once per process, shared by sessions.

export interface ToolLimits {
  /** Longest search_documents query after trimming, in characters, 1–100000. Default 1000. */
  maxQueryChars: number;
  /** Largest search_documents top_k, 1–1000. Default 50. */
  maxTopK: number;
  /** Largest get_document max_chars, in characters, 100–1000000. Default 100000 (about 25,000 tokens). */
  maxDocumentChars: number;
  /** Largest list_documents limit, and the resources/list page size, 1–10000. Default 100. */
  maxPageSize: number;
}

export const DEFAULT_TOOL_LIMITS: Readonly<ToolLimits> = Object.freeze({
  maxQueryChars: 1000,
  maxTopK: 50,
  maxDocumentChars: 100_000,
  maxPageSize: 100,
});

/** Each limit's valid range, whole numbers inclusive; config.ts checks the environment against the same table. */
export const TOOL_LIMIT_RANGES: Readonly<Record<keyof ToolLimits, readonly [min: number, max: number]>> = {
  maxQueryChars: [1, 100_000],
  maxTopK: [1, 1000],
  maxDocumentChars: [100, 1_000_000],
  maxPageSize: [1, 10_000],
};

/** The defaults overridden by `overrides`; throws RangeError naming every value out of range. */
export function resolveToolLimits(overrides: Partial<ToolLimits> = {}): ToolLimits {
  const limits: ToolLimits = { ...DEFAULT_TOOL_LIMITS };
  const problems: string[] = [];
  for (const key of Object.keys(TOOL_LIMIT_RANGES) as Array<keyof ToolLimits>) {
    const value = overrides[key];
    if (value === undefined) continue;
    const [min, max] = TOOL_LIMIT_RANGES[key];
    if (!Number.isInteger(value) || value < min || value > max) problems.push(`${key} must be a whole number from ${min} to ${max}, got ${value}`);
    else limits[key] = value;
  }
  if (problems.length > 0) throw new RangeError(`tool limits: ${problems.join('; ')}`);
  return limits;
}
