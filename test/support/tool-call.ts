// One tool call over a fresh SDK client of a running server, and the shape of a search answer, for
// end-to-end tests of search.
import type { OpsServer } from '../metrics-server.js';

export type SearchResult = { mode: string; results: Array<{ chunk_id: string; found_by: string[]; score: number }>; note?: string };

export async function callTool(server: OpsServer, name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; structured: unknown; text: string }> {
  const { client } = await server.connect();
  try {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: unknown; content: Array<{ text: string }> };
    return { isError: result.isError, structured: result.structuredContent, text: result.content[0]?.text ?? '' };
  } finally {
    await client.close();
  }
}

