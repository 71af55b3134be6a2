// How much one tool call may ask for. Each bound keeps a single answer cheap to compute and well under
// the 25,000 tokens a client such as Claude Code accepts for a tool result; operators can tighten them
// (or loosen them for private deployments) through config. Built once per process, shared by sessions.
import type { ToolLimits } from '../../config/config.js';
import { TOOL_LIMIT_DEFAULTS, TOOL_LIMIT_RANGES } from '../../config/server-defaults.js';

// The limits are environment settings: their defaults and ranges are the configuration schema's.
export type { ToolLimits } from '../../config/config.js';
/** Each limit's default; the same table the environment's MAX_* variables default to. */
export const DEFAULT_TOOL_LIMITS: Readonly<ToolLimits> = TOOL_LIMIT_DEFAULTS;
/** Each limit's valid range, whole numbers inclusive; the environment is checked against the same table. */
export { TOOL_LIMIT_RANGES };

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
