import { mkdir, mkdtemp, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorpusError } from './corpus-error.js';
import { listExtensions } from './formats.js';
import { loadCorpus } from './load-corpus.js';

let base: string;
let root: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'corpus-test-'));
  root = join(base, 'root');
  await mkdir(root);
});
afterEach(async () => {
  await chmod(root, 0o755).catch(() => undefined);
  await rm(base, { recursive: true, force: true });
});

/** Writes files under `dir` (default: the corpus root), creating folders as needed. */
async function files(tree: Record<string, string | Uint8Array>, dir = root): Promise<void> {
  for (const [path, content] of Object.entries(tree)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

async function reasonFor(path: string): Promise<string | undefined> {
  const corpus = await loadCorpus(root);
  return corpus.skipped.find((entry) => entry.path === path)?.reason;
}

const isRoot = process.getuid?.() === 0;

describe('loadCorpus', () => {
  describe('walking the folder', () => {
    it('indexes .md, .markdown, .txt and .rst files in nested folders, whatever the case of the extension', async () => {
      await files({
        'a.md': '# A\n',
        'guides/b.markdown': '# B\n',
        'guides/deep/c.TXT': 'C\n',
        'guides/deep/deeper/d.Rst': 'D\n=\n',
      });
      const corpus = await loadCorpus(root);
      expect(corpus.documents.map((d) => d.source)).toEqual([
        'a.md',
        'guides/b.markdown',
        'guides/deep/c.TXT',
        'guides/deep/deeper/d.Rst',
      ]);
      expect(corpus.skipped).toEqual([]);
      expect(corpus.root).toBe(root);
    });

    it('sorts documents by source in code-unit order, independent of the order files were written', async () => {
      await files({ 'b.md': 'b', 'B.md': 'B', 'a/z.md': 'z', 'a.md': 'a', 'ä.md': 'ä' });
      const corpus = await loadCorpus(root);
      expect(corpus.documents.map((d) => d.source)).toEqual(['B.md', 'a.md', 'a/z.md', 'b.md', 'ä.md']);
    });

    it('records files of other types with their extension, and files without one', async () => {
      await files({ 'doc.md': 'x', 'manual.odt': 'x', 'sub/pic.PNG': 'x', LICENSE: 'x' });
      const corpus = await loadCorpus(root);
      expect(corpus.skipped).toEqual([
        { path: 'LICENSE', reason: `no file extension (indexed: ${listExtensions('and')})`, operatorOnly: true },
        { path: 'manual.odt', reason: `unsupported file type .odt (indexed: ${listExtensions('and')})`, operatorOnly: true },
        { path: 'sub/pic.PNG', reason: `unsupported file type .PNG (indexed: ${listExtensions('and')})`, operatorOnly: true },
      ]);
    });

    it('records hidden folders and node_modules once, without listing what is inside', async () => {
      await files({
        'doc.md': 'x',
        '.git/HEAD': 'ref',
        '.git/notes.md': 'not indexed',
        'node_modules/pkg/README.md': 'not indexed',
        'sub/.cache/x.md': 'not indexed',
        'sub/node_modules/y.md': 'not indexed',
      });
      const corpus = await loadCorpus(root);
      expect(corpus.documents.map((d) => d.source)).toEqual(['doc.md']);
      expect(corpus.skipped).toEqual([
        { path: '.git/', reason: 'hidden folder' , operatorOnly: true },
        { path: 'node_modules/', reason: 'node_modules folder (installed packages, not documents)' , operatorOnly: true },
        { path: 'sub/.cache/', reason: 'hidden folder' , operatorOnly: true },
        { path: 'sub/node_modules/', reason: 'node_modules folder (installed packages, not documents)' , operatorOnly: true },
      ]);
    });

    it('records hidden files individually', async () => {
      await files({ 'doc.md': 'x', '.draft.md': 'x', 'sub/.DS_Store': 'x' });
      const corpus = await loadCorpus(root);
      expect(corpus.skipped).toEqual([
        { path: '.draft.md', reason: 'hidden file' , operatorOnly: true },
        { path: 'sub/.DS_Store', reason: 'hidden file' , operatorOnly: true },
      ]);
    });

    it('reads many files with bounded concurrency and loses none', async () => {
      const tree: Record<string, string> = {};
      for (let i = 0; i < 60; i++) tree[`f${String(i).padStart(2, '0')}.md`] = `# Doc ${i}\n`;
      await files(tree);
      const corpus = await loadCorpus(root, { concurrency: 3 });
      expect(corpus.documents).toHaveLength(60);
      expect(corpus.documents[59]).toMatchObject({ source: 'f59.md', title: 'Doc 59' });
    });
  });

  describe('symbolic links', () => {
    it('skips links to files and folders outside the root without naming the target', async () => {
      await files({ 'secret.md': 'outside', 'secrets/a.md': 'outside' }, base);
      await files({ 'doc.md': 'x' });
      await symlink(join(base, 'secret.md'), join(root, 'leak.md'));
      await symlink(join(base, 'secrets'), join(root, 'leakdir'));
      await symlink('../secret.md', join(root, 'relative-leak.md'));
      const corpus = await loadCorpus(root);
      expect(corpus.documents.map((d) => d.source)).toEqual(['doc.md']);
      expect(corpus.skipped).toEqual([
        { path: 'leak.md', reason: 'symbolic link leads outside the corpus folder' , operatorOnly: true },
        { path: 'leakdir', reason: 'symbolic link leads outside the corpus folder' , operatorOnly: true },
        { path: 'relative-leak.md', reason: 'symbolic link leads outside the corpus folder' , operatorOnly: true },
      ]);
      expect(JSON.stringify(corpus.skipped)).not.toContain(base);
    });

    it('skips a link to a sibling folder whose name merely starts with the root name', async () => {
      await files({ 'x.md': 'outside' }, `${root}-evil`);
      await files({ 'doc.md': 'x' });
      await symlink(`${root}-evil`, join(root, 'evil'));
      expect(await reasonFor('evil')).toBe('symbolic link leads outside the corpus folder');
    });

    it('follows a link to a file inside the root, under the link name', async () => {
      await files({ 'real/doc.md': '# Real\n' });
      await symlink(join(root, 'real/doc.md'), join(root, 'alias.md'));
      const corpus = await loadCorpus(root);
      expect(corpus.documents.map((d) => [d.source, d.title])).toEqual([
        ['alias.md', 'Real'],
        ['real/doc.md', 'Real'],
      ]);
    });

    it('walks a linked folder inside the root that is not otherwise indexed', async () => {
      await files({ 'doc.md': 'x', '.hidden/guide.md': '# Guide\n' });
      await symlink(join(root, '.hidden'), join(root, 'guides'));
      const corpus = await loadCorpus(root);
      expect(corpus.documents.map((d) => d.source)).toEqual(['doc.md', 'guides/guide.md']);
    });

    it('keeps files under their real folder when a link to that folder sorts first', async () => {
      await files({ 'b-real/doc.md': 'x' });
      await symlink(join(root, 'b-real'), join(root, 'a-link'));
      const corpus = await loadCorpus(root);
      expect(corpus.documents.map((d) => d.source)).toEqual(['b-real/doc.md']);
      expect(corpus.skipped).toEqual([{ path: 'a-link/', reason: 'symbolic link to a folder that is already indexed' , operatorOnly: true }]);
    });

    it('stops at a link that loops back to an ancestor folder', async () => {
      await files({ 'sub/doc.md': 'x' });
      await symlink(root, join(root, 'sub/loop'));
      const corpus = await loadCorpus(root);
      expect(corpus.documents.map((d) => d.source)).toEqual(['sub/doc.md']);
      expect(corpus.skipped).toEqual([{ path: 'sub/loop/', reason: 'symbolic link to a folder that is already indexed' , operatorOnly: true }]);
    });

    it('records a broken link and a link that points to itself', async () => {
      await files({ 'doc.md': 'x' });
      await symlink(join(root, 'missing.md'), join(root, 'broken.md'));
      await symlink(join(root, 'self.md'), join(root, 'self.md'));
      const corpus = await loadCorpus(root);
      expect(corpus.skipped).toEqual([
        { path: 'broken.md', reason: 'broken symbolic link (its target does not exist)' , operatorOnly: true },
        { path: 'self.md', reason: 'symbolic link loop' , operatorOnly: true },
      ]);
    });

    it('accepts a root that is itself a symbolic link', async () => {
      await files({ 'doc.md': '# Doc\n' });
      const link = join(base, 'root-link');
      await symlink(root, link);
      const corpus = await loadCorpus(link);
      expect(corpus.root).toBe(link);
      expect(corpus.documents.map((d) => d.source)).toEqual(['doc.md']);
    });
  });

  describe('file contents', () => {
    it.each([
      ['invalid UTF-8', Uint8Array.from([0x68, 0x69, 0xc3, 0x28, 0x0a]), 'not valid UTF-8 (save the file as UTF-8)'],
      ['a Latin-1 é', Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), 'not valid UTF-8 (save the file as UTF-8)'],
      ['a NUL byte', Uint8Array.from([0x61, 0x00, 0x62]), 'binary file (contains NUL bytes)'],
      ['a UTF-16 little-endian BOM', Uint8Array.from([0xff, 0xfe, 0x68, 0x00]), 'UTF-16 text (only UTF-8 is read: save the file as UTF-8)'],
      ['a UTF-16 big-endian BOM', Uint8Array.from([0xfe, 0xff, 0x00, 0x68]), 'UTF-16 text (only UTF-8 is read: save the file as UTF-8)'],
      ['no bytes', new Uint8Array(0), 'empty file'],
      ['only whitespace', ' \n\t\n', 'empty file (only whitespace)'],
      ['only front matter', '---\ntitle: Nothing here\n---\n\n', 'no text after the front matter'],
    ])('skips a file with %s', async (_name, content, reason) => {
      await files({ 'ok.md': 'x', 'bad.md': content });
      expect(await reasonFor('bad.md')).toBe(reason);
    });

    it('skips files over the size limit, naming the limit and the size', async () => {
      await files({ 'ok.md': 'x', 'big.md': 'y'.repeat(3 * 1024 + 300) });
      const corpus = await loadCorpus(root, { maxFileBytes: 2 * 1024 });
      expect(corpus.skipped).toEqual([{ path: 'big.md', reason: 'larger than the 2 KB limit (3.3 KB)' }]);
    });

    it('keeps a file exactly at the size limit', async () => {
      await files({ 'edge.md': 'z'.repeat(100) });
      const corpus = await loadCorpus(root, { maxFileBytes: 100 });
      expect(corpus.documents.map((d) => d.bytes)).toEqual([100]);
    });

    it('defaults the size limit to 10 MB', async () => {
      await files({ 'ok.md': 'x', 'huge.txt': new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61) });
      expect(await reasonFor('huge.txt')).toBe('larger than the 10 MB limit (10 MB)');
    });

    it('keeps the text exactly as decoded, including front matter and CRLF line endings', async () => {
      const text = '---\r\ntitle: Exact\r\n---\r\nBody line\r\n\r\nMore, with ünïcödé and 日本語.\r\n';
      await files({ 'exact.md': text });
      const [doc] = (await loadCorpus(root)).documents;
      expect(doc).toEqual({
        source: 'exact.md',
        format: 'markdown',
        title: 'Exact',
        text,
        bodyStart: text.indexOf('Body'),
        bytes: Buffer.byteLength(text),
        sections: [],
      });
    });

    it('drops a UTF-8 byte order mark from the text but counts it in bytes', async () => {
      const body = '---\ntitle: BOM\n---\nBody\n';
      await files({ 'bom.md': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]) });
      const [doc] = (await loadCorpus(root)).documents;
      expect(doc?.text).toBe(body);
      expect(doc?.title).toBe('BOM');
      expect(doc?.text.slice(doc.bodyStart)).toBe('Body\n');
      expect(doc?.bytes).toBe(Buffer.byteLength(body) + 3);
    });
  });

  describe('titles', () => {
    it.each([
      ['front matter title over a heading', 'a.md', '---\ntitle: From YAML\n---\n# From heading\n', 'From YAML'],
      ['the first ATX heading', 'a.md', 'Intro\n\n## Second level first\n# Top\n', 'Second level first'],
      ['a setext heading', 'a.markdown', 'Setext Title\n============\n', 'Setext Title'],
      ['a heading after front matter without a title', 'a.md', '---\nauthor: Ada\n---\n# After\n', 'After'],
      ['a reStructuredText title', 'a.rst', '=====\nRST\n=====\n\nText\n', 'RST'],
      ['the file name without extension when there is no heading', 'release-notes.v2.txt', 'plain text\n', 'release-notes.v2'],
    ])('uses %s', async (_name, path, content, title) => {
      await files({ [path]: content });
      const [doc] = (await loadCorpus(root)).documents;
      expect(doc?.title).toBe(title);
    });

    it('falls back to the heading when front matter is malformed, and warns', async () => {
      const text = '---\ntitle: [broken\n---\n# Fallback\n';
      await files({ 'bad-yaml.md': text });
      const corpus = await loadCorpus(root);
      expect(corpus.documents[0]).toMatchObject({ title: 'Fallback', bodyStart: text.indexOf('# Fallback') });
      expect(corpus.warnings).toEqual([
        { path: 'bad-yaml.md', message: expect.stringMatching(/^front matter is not valid YAML/) as unknown },
      ]);
      expect(corpus.skipped).toEqual([]);
    });

    it('never evaluates JavaScript front matter', async () => {
      const probe = '__corpusFrontMatterProbe';
      await files({ 'js.md': `---js\n{ title: (globalThis.${probe} = 'ran', 'x') }\n---\n# Heading\n` });
      const [doc] = (await loadCorpus(root)).documents;
      expect((globalThis as Record<string, unknown>)[probe]).toBeUndefined();
      expect(doc?.bodyStart).toBe(0);
    });
  });

  describe('onProgress', () => {
    it('counts every file of the walk as it is read and done with, skips and empty files included, from 0 to the total', async () => {
      await files({ 'a.md': '# A\n', 'b.md': '# B\n', 'empty.md': '', 'big.txt': 'x'.repeat(100), 'image.png': new Uint8Array([1]) });
      const seen: Array<{ read: number; done: number; total: number }> = [];
      await loadCorpus(root, { maxFileBytes: 50, concurrency: 1, onProgress: (progress) => seen.push(progress) });
      // image.png is not a candidate (the walk skips it); big.txt is skipped for its size before it is read.
      expect(seen[0]).toEqual({ read: 0, done: 0, total: 4 });
      expect(seen.at(-1)).toEqual({ read: 3, done: 4, total: 4 });
      expect(seen.map((p) => p.done)).toEqual([...seen.map((p) => p.done)].sort((x, y) => x - y));
    });
  });

  describe('errors', () => {
    it('rejects a missing folder with not_found, naming the path and what to do', async () => {
      const missing = join(base, 'nope');
      const error = await loadCorpus(missing).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorpusError);
      expect(error).toMatchObject({ code: 'not_found', path: missing });
      expect((error as Error).message).toBe(
        `CORPUS_DIR ${missing} does not exist: set CORPUS_DIR to a folder of ${listExtensions('or')} files`,
      );
    });

    it('names both the given and the resolved path for a relative root', async () => {
      const error = await loadCorpus('definitely-not-a-corpus-dir').catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/^CORPUS_DIR \/.+\/definitely-not-a-corpus-dir \(from "definitely-not-a-corpus-dir"\) does not exist/);
    });

    it('rejects a file with not_a_directory', async () => {
      await files({ 'doc.md': 'x' });
      await expect(loadCorpus(join(root, 'doc.md'))).rejects.toMatchObject({
        code: 'not_a_directory',
        message: expect.stringContaining('is a file, not a folder') as unknown,
      });
    });

    it('rejects a path under a file with not_found', async () => {
      await files({ 'doc.md': 'x' });
      await expect(loadCorpus(join(root, 'doc.md', 'sub'))).rejects.toMatchObject({ code: 'not_found' });
    });

    it('rejects an empty folder with no_documents', async () => {
      await expect(loadCorpus(root)).rejects.toMatchObject({
        code: 'no_documents',
        path: root,
        message: `CORPUS_DIR ${root} is empty: add ${listExtensions('or')} files to it, or set CORPUS_DIR to another folder`,
      });
    });

    it('rejects a folder whose files are all skipped, summarising why', async () => {
      await files({ 'a.odt': 'x', 'b.odt': 'x', 'c.md': '', '.git/HEAD': 'x' });
      const error = (await loadCorpus(root).catch((e: unknown) => e)) as CorpusError;
      expect(error.code).toBe('no_documents');
      expect(error.message).toContain('contains no documents to index (4 skipped: 2 × unsupported file type .odt');
      expect(error.message).toContain('1 × empty file');
      expect(error.message).toContain('1 × hidden folder');
    });

    it.skipIf(isRoot)('rejects a folder it may not read with unreadable', async () => {
      await files({ 'doc.md': 'x' });
      await chmod(root, 0o000);
      await expect(loadCorpus(root)).rejects.toMatchObject({
        code: 'unreadable',
        message: expect.stringContaining('cannot be read (permission denied)') as unknown,
      });
    });

    it.skipIf(isRoot)('records a nested folder or file it may not read and loads the rest', async () => {
      await files({ 'doc.md': 'x', 'locked/a.md': 'x', 'secret.md': 'x' });
      await chmod(join(root, 'locked'), 0o000);
      await chmod(join(root, 'secret.md'), 0o000);
      const corpus = await loadCorpus(root);
      await chmod(join(root, 'locked'), 0o755);
      expect(corpus.skipped).toEqual([
        { path: 'locked/', reason: 'folder could not be read (permission denied)' , operatorOnly: true },
        { path: 'secret.md', reason: 'could not be read (permission denied)' },
      ]);
    });

    it.each([0, -1, 1.5, Number.NaN])('rejects maxFileBytes %s with a RangeError', async (value) => {
      await files({ 'doc.md': 'x' });
      await expect(loadCorpus(root, { maxFileBytes: value })).rejects.toThrow(RangeError);
    });
  });
});
