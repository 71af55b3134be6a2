// A Markdown document as the loader would hand it to search: its sections found by the real
// extractor, so tests of the index read headings the way a served corpus does.
import type { Document } from '../../src/corpus/document.js';
import { markdownSections } from '../../src/corpus/extract/markdown.js';

/** `text` as a Markdown file at `source` with no front matter; `extra` overrides any field (a format, pages). */
export function markdownDocument(source: string, text: string, title = source, extra: Partial<Document> = {}): Document {
  return {
    source,
    format: 'markdown',
    title,
    text,
    bodyStart: 0,
    bytes: Buffer.byteLength(text),
    sections: markdownSections(text, 0),
    ...extra,
  };
}
