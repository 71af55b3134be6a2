// One shape for every tool: a zod input schema (checked by us, so a bad argument becomes a readable
// tool error rather than a protocol error), an output schema (published once as JSON Schema), and a
// pure handler over the served corpus. Each tool is built once per MCP service (createTools) and shared
// by all sessions and both protocol eras; nothing is allocated per session or per request.
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SemanticService } from '../../semantic/semantic-service.js';
import type { ServedCorpus } from '../index-holder.js';
import { ToolError } from './tool-error.js';
import type { SourceLinks } from './source-url.js';

/** What a tool may use beside the corpus: process-wide services, and a way to tell the caller what happened. */
export interface ToolContext {
  /** Embeddings and rerank endpoints; absent or `enabled` false when none are configured. */
  semantic?: SemanticService;
  /** Called when the tool answered without a configured endpoint it would have used (keyword fallback). */
  onFallback?: () => void;
  /** How `url`s are made (SOURCE_URL_TEMPLATE, CORPUS_GIT_PATH); absent: front matter urls only. */
  links?: SourceLinks;
}

export interface ToolSpec<Input extends z.ZodObject, Output> {
  name: string;
  title: string;
  /** Written for a model: what it returns, when to use it, what to call next. */
  description: string;
  input: Input;
  output: z.ZodObject;
  /** Throws ToolError for anything the caller can fix. */
  run(args: z.output<Input>, corpus: ServedCorpus, context: ToolContext): Output | Promise<Output>;
}

export interface DefinedTool {
  name: string;
  /** The entry for tools/list, computed once. */
  listing: Tool;
  /** Validates raw arguments (throwing ToolError) and runs the tool. */
  call(rawArguments: unknown, corpus: ServedCorpus, context?: ToolContext): Promise<Record<string, unknown>>;
}

// The spec reads destructiveHint only when readOnlyHint is false, but MCP directories (Smithery, the Claude
// connector directory) list a server only when each tool says it outright; idempotentHint is left out.
const ANNOTATIONS = Object.freeze({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });

/**
 * JSON Schema 2020-12, the default dialect since MCP 2025-11-25, so left undeclared: every session pays
 * for tools/list in its context, and these are the bytes a model reads nothing in. For the same reason
 * the safe-integer bounds zod puts on every `.int()` are dropped (a JSON integer is one anyway), and
 * output schemas leave out bounds and `additionalProperties`: they name what the server writes, which
 * nothing needs checked against limits.
 */
function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' });
  return compact(json, io) as Tool['inputSchema'];
}

function compact(node: unknown, io: 'input' | 'output'): unknown {
  if (Array.isArray(node)) return node.map((item) => compact(item, io));
  if (node === null || typeof node !== 'object') return node;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (io === 'output' && (key === 'additionalProperties' || key === 'minimum' || key === 'maximum')) continue;
    kept[key] = compact(value, io);
  }
  return kept;
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

/** "top_k=500: must be at most 50" — one clause per problem, naming the argument and its value. */
function formatIssues(tool: string, input: z.ZodObject, error: z.ZodError, raw: unknown): string {
  const args = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const accepted = Object.keys(input.shape).join(', ');
  const clauses = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (accepted: ${accepted})`;
    }
    const name = issue.path.length > 0 ? issue.path.map(String).join('.') : 'arguments';
    const value = issue.path.length > 0 ? args[String(issue.path[0])] : raw;
    return `${name}=${describeValue(value)}: ${issue.message}`;
  });
  return `invalid arguments for ${tool}: ${clauses.join('; ')}. Fix the argument${clauses.length > 1 ? 's' : ''} and call ${tool} again.`;
}

export function defineTool<Input extends z.ZodObject, Output extends Record<string, unknown>>(
  spec: ToolSpec<Input, Output>,
): DefinedTool {
  const listing: Tool = Object.freeze({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: jsonSchemaOf(spec.input, 'input'),
    outputSchema: jsonSchemaOf(spec.output, 'output') as Tool['outputSchema'],
    annotations: ANNOTATIONS,
  });
  return {
    name: spec.name,
    listing,
    async call(rawArguments, corpus, context = {}) {
      const parsed = spec.input.safeParse(rawArguments ?? {});
      if (!parsed.success) {
        throw new ToolError('invalid_arguments', formatIssues(spec.name, spec.input, parsed.error, rawArguments));
      }
      return spec.run(parsed.data, corpus, context);
    },
  };
}
