// The tools' answers to hostile arguments, called through the MCP service itself (no socket, no SDK):
// wrong types, out-of-range numbers, empty and huge strings, control characters, every script the
// tokenizer meets, path traversal in every encoding, ids that almost parse. Each is refused with a
// tool error that names the offending value and says what to do, or answered correctly; nothing
// outside the index is ever served. test/robustness-arguments.test.ts keeps one case of each kind
// over HTTP with the real client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, checkedToolCalls } from '../../test/robustness-support.js';
import { writeTempCorpus } from '../../test/support/sample-corpus.js';
import type { TempCorpus } from '../../test/support/sample-corpus.js';
import { loadCorpus } from '../corpus/load-corpus.js';
import { decodeIndexSnapshot, readSnapshotHeader, SnapshotError, snapshotSection } from '../search/index-snapshot.js';
import { encodeIndexSnapshot } from '../search/snapshot-encode.js';
import { SearchIndex } from '../search/search-index.js';
import { IndexHolder } from './index-holder.js';
import { createMcpService } from './mcp-service.js';
import type { McpService } from './mcp-service.js';
import { McpRequestError } from './mcp-request-error.js';


const FILES: Record<string, string> = {
  'guide.md': '# Guide\n\nSessions expire after an idle timeout. Tokens are checked on every request.\n',
  'sub/deep/notes.md': '# Notes\n\nThe lighthouse keeper trims the wick.\n',
  'intl/tokyo.md': '# 東京\n\n東京都の天気予報は晴れです。\n',
  'intl/arabic.md': '# مرحبا\n\nالمكتبة مفتوحة كل يوم من الصباح.\n',
  'intl/emoji.md': '# Party\n\nBring cake 🎂 and balloons 🎈 to the launch.\n',
  'intl/cafe.md': '# Café\n\nThe café serves crème brûlée.\n',
  '.hidden.md': `# Hidden\n\n${CANARY}\n`,
  'secret.env': `TOKEN=${CANARY}\n`,
  '.env': `TOKEN=${CANARY}\n`,
  '.git/config': `[remote] ${CANARY}\n`,
  'node_modules/pkg/README.md': `# Pkg\n\n${CANARY}\n`,
  'empty.md': '   \n',
};

describe('createMcpService', () => {
  let temp: TempCorpus;
  let service: McpService;

  beforeAll(async () => {
    temp = await writeTempCorpus(FILES, { 'secret.txt': `${CANARY}\n`, 'etc/passwd': `root:${CANARY}\n` });
    const corpus = await loadCorpus(temp.corpusDir);
    const holder = new IndexHolder();
    holder.set({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });
    service = createMcpService({ holder, indexWaitMs: 5000 });
  });
  afterAll(async () => {
    await temp?.remove();
  });

  const { ok, refused } = checkedToolCalls((name, args) => service.callTool(name, args, { era: 'legacy' }));

  describe('callTool', () => {
    describe('search_documents', () => {
      it.each([
        ['a number', { query: 42 }, /query=42/],
        ['null', { query: null }, /query=null/],
        ['an array', { query: ['sessions'] }, /query=\["sessions"\]/],
        ['an object', { query: { $ne: '' } }, /query=\{"\$ne":""\}/],
        ['a boolean', { query: true }, /query=true/],
        ['missing', {}, /query=nothing/],
      ])('refuses query as %s, naming the argument and its value', async (_name, args, expected) => {
        expect(await refused('search_documents', args)).toMatch(expected);
      });

      it.each(['', '   ', '\t\n\r ', '\u00a0\u2003'])('refuses the blank query %j', async (query) => {
        expect(await refused('search_documents', { query })).toMatch(/query=.*non-blank/);
      });

      it.each([1001, 100_000])('refuses a query of %i characters, saying the limit', async (length) => {
        const message = await refused('search_documents', { query: 'a'.repeat(length) });
        expect(message).toMatch(/at most 1000 characters/);
        expect(message.length).toBeLessThan(1000);
      });

      it.each([
        [0, /top_k=0: must be at least 1/],
        [-1, /top_k=-1/],
        [51, /top_k=51: must be at most 50/],
        [1.5, /top_k=1.5: must be a whole number/],
        [1e308, /top_k=1e\+308/],
        ['5', /top_k="5"/],
        [null, /top_k=null/],
      ])('refuses top_k=%j', async (top_k, expected) => {
        expect(await refused('search_documents', { query: 'sessions', top_k })).toMatch(expected);
      });

      it.each([
        ['NUL bytes', 'sessions\u0000\u0000expire'],
        ['C0 controls', '\u0001\u0007sessions\u001b[31m'],
        ['C1 and bidi controls', '\u0085\u202esessions\u202c'],
        ['a lone surrogate', 'sessions \ud800'],
        ['zero-width characters', 'ses\u200bsions'],
      ])('answers a query with %s, finding what the words match', async (_name, query) => {
        const result = await ok('search_documents', { query });
        expect(result.query).toBe(query.trim());
        expect((result.results as Array<{ source: string }>).every((r) => typeof r.source === 'string')).toBe(true);
      });

      it.each([
        ['CJK', '天気', 'intl/tokyo.md'],
        ['Arabic', 'المكتبة', 'intl/arabic.md'],
        ['emoji', '🎂', 'intl/emoji.md'],
        ['combining marks (decomposed é)', 'cafe\u0301', 'intl/cafe.md'],
        ['full-width Latin', 'ｓｅｓｓｉｏｎｓ', 'guide.md'],
      ])('finds the right document for a %s query', async (_name, query, source) => {
        const result = await ok('search_documents', { query });
        expect((result.results as Array<{ source: string }>)[0]?.source).toBe(source);
      });

      it('answers a query of punctuation only with no results and a note saying nothing matched', async () => {
        const result = await ok('search_documents', { query: '!!! ??? ...' });
        expect(result.results).toEqual([]);
        expect(result.note).toMatch(/Nothing matched/);
      });

      it('answers a query of stop words only with a note saying every word was a stop word', async () => {
        const result = await ok('search_documents', { query: 'the and of' });
        expect(result.results).toEqual([]);
        expect(result.note).toMatch(/^Every word of "the and of" is a stop word .*Search for the words that carry the meaning/);
        expect(result.note).not.toMatch(/Nothing matched/);
      });

      it('refuses unknown arguments, naming them and listing the accepted ones', async () => {
        const message = await refused('search_documents', { query: 'sessions', __proto__x: 1, constructor: 'x' });
        expect(message).toMatch(/unknown arguments? .*"constructor"/);
        expect(message).toMatch(/accepted: query, top_k, path_prefix/);
      });

      it.each(['../', '/etc', '\u0000', '..\\'])('treats path_prefix %j as a plain prefix that matches nothing', async (path_prefix) => {
        const result = await ok('search_documents', { query: 'sessions', path_prefix });
        expect(result.results).toEqual([]);
        expect(result.note).toMatch(/list_documents/);
      });
    });

    describe('get_document', () => {
      const traversals = (workDir: string): string[] => [
        '../secret.txt',
        '../../secret.txt',
        'sub/../../secret.txt',
        '..%2fsecret.txt',
        '%2e%2e/secret.txt',
        '%2e%2e%2fsecret.txt',
        '..%252fsecret.txt',
        '%252e%252e%252fsecret.txt',
        '..\\secret.txt',
        'sub\\..\\..\\secret.txt',
        '..%5csecret.txt',
        `${workDir}/secret.txt`,
        '/etc/passwd',
        '//etc/passwd',
        'C:\\Windows\\win.ini',
        '\\\\server\\share\\secret.txt',
        'file:///etc/passwd',
        `file://${workDir}/secret.txt`,
        'guide.md\u0000../secret.txt',
        '../secret.txt\u0000.md',
        'guide.md%00',
        '\uff0e\uff0e/secret.txt',
        '\u2024\u2024/secret.txt',
        '\uff0e\uff0e\uff0fsecret.txt',
        '%c0%ae%c0%ae/secret.txt',
        '..%c0%afsecret.txt',
        '..%e0%80%afsecret.txt',
        '.hidden.md',
        'secret.env',
        '../corpus/.hidden.md',
        './.hidden.md',
        'sub/deep/../../.hidden.md',
        'etc/passwd',
      ];

      it('refuses every traversal, absolute path, URL and encoding trick, pointing to list_documents', async () => {
        for (const source of traversals(temp.workDir)) {
          const message = await refused('get_document', { source });
          expect(message, source).toMatch(/is not a document in the index/);
          expect(message, source).toMatch(/list_documents/);
        }
      });

      it.each([
        ['./guide.md', 'guide.md'],
        ['sub/deep/../deep/notes.md', 'sub/deep/notes.md'],
        ['GUIDE.MD', 'guide.md'],
        ['guide.md ', 'guide.md'],
        ['notes.md', 'sub/deep/notes.md'],
      ])('refuses the near miss %j and suggests %j', async (source, suggestion) => {
        expect(await refused('get_document', { source })).toContain(`"${suggestion}"`);
      });

      it('serves a document requested exactly as listed', async () => {
        const result = await ok('get_document', { source: 'sub/deep/notes.md' });
        expect(result.text).toBe(FILES['sub/deep/notes.md']);
      });

      it.each([
        [{ source: 'guide.md', offset: -1 }, /offset=-1: must be 0 or more/],
        [{ source: 'guide.md', offset: 1.5 }, /offset=1.5/],
        [{ source: 'guide.md', offset: 1e20 }, /offset=100000000000000000000: must be a whole number/],
        [{ source: 'guide.md', offset: '0' }, /offset="0"/],
        [{ source: 'guide.md', max_chars: 0 }, /max_chars=0: must be at least 1/],
        [{ source: 'guide.md', max_chars: 100_001 }, /max_chars=100001: must be at most 100000/],
        [{ source: 'guide.md', max_chars: -5 }, /max_chars=-5/],
        [{ source: '' }, /source="": must not be empty/],
        [{ source: 'x'.repeat(2001) }, /source="x+\.\.\.: must be at most 2000 characters/],
        [{ source: ['guide.md'] }, /source=\["guide.md"\]/],
        [{ source: 7 }, /source=7/],
      ])('refuses %j, naming the value', async (args, expected) => {
        expect(await refused('get_document', args)).toMatch(expected);
      });
    });

    describe('get_chunk', () => {
      it.each([
        ['guide.md#', /not of the form <source>#<n>/],
        ['guide.md#-1', /not of the form/],
        ['guide.md#1.5', /not of the form/],
        ['guide.md#01', /not of the form/],
        ['guide.md# 0', /not of the form/],
        ['guide.md#0x0', /not of the form/],
        ['guide.md#1e3', /not of the form/],
        ['guide.md#０', /not of the form/],
        ['guide.md', /not of the form/],
        ['guide.md#99999999999999999999', /guide.md has 1 chunk \(guide.md#0 to guide.md#0\)/],
        ['guide.md#1', /guide.md has 1 chunk/],
        ['#0', /the index holds no document ""/],
        ['../secret.txt#0', /the index holds no document "..\/secret.txt"/],
        ['.hidden.md#0', /the index holds no document ".hidden.md"/],
        ['guide.md#0#0', /the index holds no document "guide.md#0"/],
        ['guide.md\u0000#0', /the index holds no document/],
      ])('refuses the chunk id %j with a message naming it', async (chunk_id, expected) => {
        const message = await refused('get_chunk', { chunk_id });
        expect(message).toMatch(expected);
        expect(message).toContain(chunk_id.slice(0, 8));
      });

      it('reads a chunk whose id parses exactly', async () => {
        const result = await ok('get_chunk', { chunk_id: 'intl/tokyo.md#0' });
        expect(result.text).toContain('東京都');
      });
    });

    describe('list_documents', () => {
      it.each([
        [{ limit: 0 }, /limit=0: must be at least 1/],
        [{ limit: 101 }, /limit=101: must be at most 100/],
        [{ limit: 2.5 }, /limit=2.5/],
        [{ cursor: 'garbage' }, /cursor "garbage" was not issued by this server/],
        [{ cursor: '' }, /cursor "" was not issued/],
        [{ cursor: Buffer.from('p1:99999').toString('base64url') }, /was not issued/],
        [{ cursor: Buffer.from('p1:-1').toString('base64url') }, /was not issued/],
        [{ cursor: 'x'.repeat(10_000) }, /cursor "x+\.\.\." was not issued/],
        [{ cursor: 12 }, /cursor=12/],
      ])('refuses %j', async (args, expected) => {
        expect(await refused('list_documents', args)).toMatch(expected);
      });

      it('lists only indexed documents, never the hidden or unsupported files', async () => {
        const result = await ok('list_documents', { limit: 100 });
        const sources = (result.documents as Array<{ source: string }>).map((d) => d.source);
        expect(sources).toEqual(['guide.md', 'intl/arabic.md', 'intl/cafe.md', 'intl/emoji.md', 'intl/tokyo.md', 'sub/deep/notes.md']);
      });

      it.each(['sub/', './sub/', '/sub/', './/sub/'])('reads path_prefix %j the same way in list_documents and search_documents', async (prefix) => {
        const listed = await ok('list_documents', { path_prefix: prefix });
        expect((listed.documents as Array<{ source: string }>).map((d) => d.source)).toEqual(['sub/deep/notes.md']);
        const found = await ok('search_documents', { query: 'lighthouse wick', path_prefix: prefix });
        expect((found.results as Array<{ source: string }>).map((r) => r.source)).toEqual(['sub/deep/notes.md']);
        const none = await ok('search_documents', { query: 'zebra', path_prefix: prefix });
        expect(JSON.stringify(none)).not.toContain("No document's source starts with");
      });

      it('shows clients only documents that could not be read, never the names of hidden or other files beside them', async () => {
        const result = await ok('list_documents', { limit: 100 });
        expect(result.skipped).toEqual([{ path: 'empty.md', reason: expect.stringMatching(/^empty file/) }]);
        const text = JSON.stringify(result);
        for (const name of ['.hidden.md', 'secret.env', '.env', '.git', 'node_modules']) expect(text).not.toContain(name);
      });
    });

    describe('an unknown tool', () => {
      it.each(['read_file', '', '../get_document', 'get_document\u0000'])('refuses %j with unknown_tool, listing the tools', async (name) => {
        const error = await service.callTool(name, {}, { era: 'legacy' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(McpRequestError);
        expect((error as McpRequestError).code).toBe('unknown_tool');
        expect((error as McpRequestError).message).toMatch(/search_documents, get_chunk, get_document, list_documents/);
      });

      it('still answers a correct call after all of the above', async () => {
        const result = await ok('search_documents', { query: 'idle timeout' });
        expect((result.results as Array<{ source: string }>)[0]?.source).toBe('guide.md');
      });
    });
  });
});

describe('createMcpService, over an index whose snapshot file was damaged after the boot', () => {
  it('answers a tool error saying the index is being rebuilt, never a text', async () => {
    const temp = await writeTempCorpus({ 'guide.md': FILES['guide.md'] as string });
    try {
      const corpus = await loadCorpus(temp.corpusDir);
      const bytes = encodeIndexSnapshot(SearchIndex.build(corpus.documents), { engine: 'test' });
      const header = readSnapshotHeader(bytes);
      // The texts left in a file whose every read now fails, as SnapshotInFile's does once damaged.
      const index = decodeIndexSnapshot({
        header,
        resident: (name) => (name === 'text' ? undefined : snapshotSection(bytes, header, name)),
        reader: () => () => {
          throw new SnapshotError('damaged', 'snapshot /srv/index.snapshot was changed or damaged after it was checked');
        },
      }).index;
      const holder = new IndexHolder();
      holder.set({ index, skipped: [] });
      const service = createMcpService({ holder, indexWaitMs: 5000 });
      const result = await service.callTool('get_document', { source: 'guide.md' }, { era: 'legacy' });
      expect(result.isError).toBe(true);
      const text = (result.content[0] as { text: string }).text;
      expect(text).toMatch(/get_document could not read the document index: its file on disk was changed or damaged .* rebuilding the index; call get_document again/);
      expect(text).not.toMatch(/idle timeout/);
      expect(text).not.toMatch(/\/srv\//); // the path is for the operator's log
    } finally {
      await temp.remove();
    }
  });
});
