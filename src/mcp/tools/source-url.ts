// The `url` of a hit, a chunk or a document, so a model can cite a link a person opens: the
// document's own front matter `url` when it has one, else SOURCE_URL_TEMPLATE (or the one derived
// from a GitHub or GitLab remote) with `{commit}` the commit served, `{path}` the path in the
// repository and `{line}` the passage's first line. No template and no front matter: no url.
// search_documents and get_chunk declare `url` in their output schemas; get_document, list_documents
// and rerank_results carry it undeclared (their schemas allow more properties), which keeps tools/list
// within its 8,000 characters.
import type { ServedCorpus } from '../index-holder.js';

/** How links are made; fixed for the process. */
export interface SourceLinks {
  /** With `{commit}`, `{path}` and `{line}` placeholders; undefined: front matter urls only. */
  template: string | undefined;
  /** The served folder inside the repository (CORPUS_GIT_PATH), '' for all of it: `{path}` is the repository's path. */
  pathPrefix: string;
}

/** Formats whose text is the file as written, so a line of the text is a line of the file. */
const LINE_FORMATS = new Set(['markdown', 'restructuredtext', 'text']);

/** 1 + the line breaks of `text` before `offset`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** The link maker of one served corpus: `(source, offset) → url`. */
export function linker(links: SourceLinks | undefined, corpus: ServedCorpus): (source: string, offset?: number) => string | undefined {
  if (links === undefined) return () => undefined;
  const { template, pathPrefix } = links;
  const { index } = corpus;
  const commit = encodeURIComponent(corpus.commit ?? 'HEAD');
  const needsLine = template?.includes('{line}') === true;
  return (source, offset = 0) => {
    const own = index.documentUrl(source);
    if (own !== undefined || template === undefined) return own;
    let line = 1;
    if (needsLine && offset > 0) {
      const document = index.getDocument(source);
      if (document !== undefined && LINE_FORMATS.has(document.format)) line = lineAt(document.text, offset);
    }
    const path = (pathPrefix === '' ? source : `${pathPrefix}/${source}`).split('/').map(encodeURIComponent).join('/');
    return template.replaceAll('{commit}', commit).replaceAll('{path}', path).replaceAll('{line}', String(line));
  };
}

/** `fields` with `url` last, when there is one. */
export function withUrl<T extends object>(url: string | undefined, fields: T): T & { url?: string } {
  return url === undefined ? fields : { ...fields, url };
}
