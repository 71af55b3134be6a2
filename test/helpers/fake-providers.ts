// A local OpenAI-compatible embeddings server (POST /v1/embeddings) and a Cohere-compatible rerank
// server (POST /v1/rerank) for tests, on an ephemeral loopback port. Their vectors and scores are
// deterministic and encode a small synonym table, so a "semantic" match is checkable by hand: "car",
// "automobile" and "vehicle" share one axis, and so on. They test the integration (batching,
// retries, timeouts, fallbacks, order), not the quality of any model.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Words that mean the same thing share an axis; any other word hashes onto one of the rest. */
const SYNONYMS: ReadonlyArray<readonly string[]> = [
  ['car', 'cars', 'automobile', 'automobiles', 'vehicle', 'vehicles', 'motorcar'],
  ['physician', 'physicians', 'doctor', 'doctors', 'clinician'],
  ['purchase', 'purchasing', 'buy', 'buying', 'acquire'],
  ['large', 'big', 'huge', 'enormous'],
  ['rain', 'rainfall', 'downpour', 'precipitation'],
];
const AXIS = new Map<string, number>(SYNONYMS.flatMap((words, axis) => words.map((w) => [w, axis] as const)));
const STOP = new Set(['a', 'an', 'the', 'of', 'and', 'or', 'to', 'in', 'on', 'for', 'is', 'are', 'be', 'with', 'by', 'it', 'its', 'at', 'as', 'that', 'this']);
export const FAKE_DIMENSIONS = 64;

/** The concept axis of a word: its synonym group, or a hash onto the remaining axes. */
function axisOf(word: string): number {
  const known = AXIS.get(word);
  if (known !== undefined) return known;
  let h = 2166136261;
  for (let i = 0; i < word.length; i += 1) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return SYNONYMS.length + ((h >>> 0) % (FAKE_DIMENSIONS - SYNONYMS.length));
}

const words = (text: string): string[] => (text.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => !STOP.has(w));

/** The fake model's embedding of `text`: counts of concept axes (not normalised; the client does that). */
export function fakeEmbedding(text: string, dimensions = FAKE_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of words(text)) vector[axisOf(word) % dimensions] = (vector[axisOf(word) % dimensions] as number) + 1;
  if (!vector.some((v) => v !== 0)) vector[dimensions - 1] = 1;
  return vector;
}

/** The fake reranker's score: the share of the query's concepts the document holds. */
export function fakeRerankScore(query: string, document: string): number {
  const want = new Set(words(query).map(axisOf));
  const have = new Set(words(document).map(axisOf));
  let hit = 0;
  for (const axis of want) if (have.has(axis)) hit += 1;
  return want.size === 0 ? 0 : hit / want.size;
}

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: { model?: string; input?: string[]; dimensions?: number; query?: string; documents?: string[] };
  /** What the server answered. */
  status: number;
}

export interface FakeProviders {
  /** Base URL to use as EMBEDDINGS_URL / RERANK_URL, e.g. http://127.0.0.1:1234/v1. */
  url: string;
  requests: RecordedRequest[];
  /** Most requests in progress at one moment. */
  maxInFlight: number;
  /** Answer the next `count` requests with `status` (and `Retry-After` when given), then serve normally. */
  failNext(count: number, status: number, retryAfter?: string): void;
  /** While true every request gets 503; simulates an endpoint that is down. */
  down: boolean;
  /** Milliseconds each answer is delayed. */
  delayMs: number;
  /** Vector size when a request names none; changing it stands for another model behind the same name. */
  nativeDimensions: number;
  /** A text the fake model embeds as all zeros: an answer with no direction. */
  zeroInput: string | undefined;
  /** Times at which requests arrived (ms, performance.now()). */
  arrivals: number[];
  /**
   * Pad the next successful answer with `bytes` of whitespace before its closing brace: valid JSON of
   * the usual content, streamed in pieces as fast as the client reads them. `padded` tells how it went.
   */
  padNext(bytes: number): void;
  /** The padded answer: bytes written so far, and whether the client hung up before its end. */
  padded: { sent: number; total: number; hungUp: boolean; closed: Promise<void> } | undefined;
  embeddingCalls(): number;
  embeddedTexts(): string[];
  close(): Promise<void>;
}

export async function startFakeProviders(): Promise<FakeProviders> {
  const failures: Array<{ status: number; retryAfter?: string }> = [];
  let inFlight = 0;
  let padding: number | undefined;
  const state: FakeProviders = {
    url: '',
    requests: [],
    maxInFlight: 0,
    down: false,
    delayMs: 0,
    nativeDimensions: FAKE_DIMENSIONS,
    zeroInput: undefined,
    arrivals: [],
    padded: undefined,
    padNext(bytes) {
      padding = bytes;
    },
    failNext(count, status, retryAfter) {
      for (let i = 0; i < count; i += 1) failures.push({ status, retryAfter });
    },
    embeddingCalls: () => state.requests.filter((r) => r.path.endsWith('/embeddings') && r.status === 200).length,
    embeddedTexts: () => state.requests.filter((r) => r.path.endsWith('/embeddings') && r.status === 200).flatMap((r) => r.body.input ?? []),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.arrivals.push(performance.now());
    inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as RecordedRequest['body'];
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
        state.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body, status });
        const pad = status === 200 ? padding : undefined;
        if (pad !== undefined) padding = undefined;
        setTimeout(() => {
          inFlight -= 1;
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          if (pad === undefined) return void res.end(JSON.stringify(payload));
          streamPadded(res, JSON.stringify(payload), pad);
        }, state.delayMs);
      };
      if (state.down) return send(503, { error: 'down' });
      const failure = failures.shift();
      if (failure) return send(failure.status, { error: 'failing on purpose' }, failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
      if (req.url === '/v1/embeddings') {
        const input = body.input ?? [];
        return send(200, {
          object: 'list',
          model: body.model,
          // Answered in reverse order with explicit indexes, as some servers do: the client must sort.
          data: input
            .map((text, index) => {
              const size = body.dimensions ?? state.nativeDimensions;
              return { object: 'embedding', index, embedding: text === state.zeroInput ? new Array<number>(size).fill(0) : fakeEmbedding(text, size) };
            })
            .reverse(),
        });
      }
      if (req.url === '/v1/rerank') {
        const documents = body.documents ?? [];
        const results = documents
          .map((doc, index) => ({ index, relevance_score: fakeRerankScore(body.query ?? '', doc) }))
          .sort((a, b) => b.relevance_score - a.relevance_score);
        return send(200, { results });
      }
      return send(404, { error: `no route ${req.url ?? ''}` });
    });
  });
  /** Writes `json` with `bytes` of spaces before its last character, waiting for the socket to drain. */
  const streamPadded = (res: ServerResponse, json: string, bytes: number): void => {
    const piece = Buffer.alloc(64 * 1024, 0x20);
    const closed = new Promise<void>((resolve) => res.on('close', resolve));
    const record = { sent: 0, total: json.length + bytes, hungUp: false, closed };
    state.padded = record;
    res.on('close', () => {
      record.hungUp = !res.writableFinished;
    });
    const write = (chunk: Buffer | string): boolean => {
      record.sent += Buffer.byteLength(chunk);
      return res.write(chunk);
    };
    write(json.slice(0, -1));
    let left = bytes;
    const pump = (): void => {
      while (left > 0 && !res.destroyed) {
        const chunk = left >= piece.length ? piece : piece.subarray(0, left);
        left -= chunk.length;
        if (!write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) {
        write(json.slice(-1));
        res.end();
      }
    };
    pump();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
