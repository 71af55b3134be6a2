// One shape for every tool: a zod input schema (checked by us, so a bad argument becomes a readable
// tool error rather than a protocol error), an output schema (published once as JSON Schema), and a
// pure handler over the served corpus. Everything here is built once at module load and shared by all
// sessions and both protocol eras; nothing is allocated per session or per request.
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SemanticService } from '../../semantic/semantic-service.js';
import type { ServedCorpus } from '../index-holder.js';
import { ToolError } from './tool-error.js';

/** What a tool may use beside the corpus: process-wide services, and a way to tell the caller what happened. */
export interface ToolContext {
  /** Embeddings and rerank endpoints; absent or `enabled` false when none are configured. */
  semantic?: SemanticService;
  /** Called when the tool answered without a configured endpoint it would have used (keyword fallback). */
  onFallback?: () => void;
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

const ANNOTATIONS = Object.freeze({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });

/**
 * JSON Schema 2020-12, declared with `$schema`: the default dialect since MCP 2025-11-25 and what SDK
 * v2 emits, so both eras publish the very same schema.
 */
function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  return z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Tool['inputSchema'];
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
