// What the view reads from the server's tool results (their structuredContent). Written here rather
// than imported from src/mcp/: the view is a browser bundle and must not pull in server code, and it
// reads defensively, since a field may be absent on an older server or added by a newer one.

export interface Hit {
  chunk_id: string;
  source: string;
  title: string;
  heading: string;
  snippet: string;
  start: number;
  end: number;
  page?: number;
  last_page?: number;
  url?: string;
}

export interface SearchResults {
  kind: 'search';
  query: string;
  results: Hit[];
  note?: string;
}

export interface DocumentPage {
  kind: 'document';
  source: string;
  title: string;
  text: string;
  offset: number;
  total_chars: number;
  next_offset: number | null;
  page?: number;
  last_page?: number;
  url?: string;
}

export interface Passage {
  kind: 'passage';
  chunk_id: string;
  source: string;
  title: string;
  heading: string;
  text: string;
  start: number;
  end: number;
  page?: number;
  last_page?: number;
  url?: string;
}

export type ToolOutput = SearchResults | DocumentPage | Passage;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const int = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);
const optional = <K extends string>(key: K, value: number | string | undefined): Partial<Record<K, number | string>> =>
  value === undefined || value === '' ? {} : ({ [key]: value } as Record<K, number | string>);

function pages(record: Record<string, unknown>): { page?: number; last_page?: number } {
  const page = int(record.page);
  const last = int(record.last_page);
  return { ...(page === undefined ? {} : { page }), ...(last === undefined ? {} : { last_page: last }) };
}

function hitOf(value: unknown): Hit | undefined {
  if (!isRecord(value) || typeof value.chunk_id !== 'string' || typeof value.source !== 'string') return undefined;
  return {
    chunk_id: value.chunk_id,
    source: value.source,
    title: str(value.title),
    heading: str(value.heading),
    snippet: str(value.snippet),
    start: int(value.start) ?? 0,
    end: int(value.end) ?? 0,
    ...pages(value),
    ...(optional('url', str(value.url)) as { url?: string }),
  };
}

/** The tool output a structuredContent holds, or undefined for one the view does not show. */
export function toolOutputOf(structured: unknown): ToolOutput | undefined {
  if (!isRecord(structured)) return undefined;
  if (Array.isArray(structured.results)) {
    const results = structured.results.map(hitOf).filter((h): h is Hit => h !== undefined);
    return { kind: 'search', query: str(structured.query), results, ...(optional('note', str(structured.note)) as { note?: string }) };
  }
  if (typeof structured.chunk_id === 'string' && typeof structured.text === 'string') {
    const hit = hitOf(structured);
    if (hit === undefined) return undefined;
    const { snippet: _snippet, ...rest } = hit;
    return { kind: 'passage', ...rest, text: structured.text };
  }
  if (typeof structured.source === 'string' && typeof structured.text === 'string') {
    return {
      kind: 'document',
      source: structured.source,
      title: str(structured.title),
      text: structured.text,
      offset: int(structured.offset) ?? 0,
      total_chars: int(structured.total_chars) ?? structured.text.length,
      next_offset: int(structured.next_offset) ?? null,
      ...pages(structured),
      ...(optional('url', str(structured.url)) as { url?: string }),
    };
  }
  return undefined;
}
