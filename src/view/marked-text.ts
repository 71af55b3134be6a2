// Text with the query's words marked, built from text nodes and <mark> elements only: document text is
// never parsed as markup, so a "<script>" or "<img onerror>" in a document is shown as those characters.

/** The words of a query, lower-cased, each cut to a stem so "deploying" marks "deploy" and "deploys". */
export function queryStems(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const stems = words.filter((w) => w.length >= 2).map((w) => (w.length > 4 ? w.replace(/(ing|ed|es|s)$/u, '') : w));
  return [...new Set(stems)];
}

/** `text` as nodes, each word beginning with one of `stems` wrapped in <mark>. */
export function markedText(text: string, stems: readonly string[]): DocumentFragment {
  const fragment = document.createDocumentFragment();
  if (stems.length === 0) {
    fragment.append(document.createTextNode(text));
    return fragment;
  }
  let last = 0;
  for (const match of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const word = match[0].toLowerCase();
    if (!stems.some((stem) => word.startsWith(stem))) continue;
    const at = match.index;
    if (at > last) fragment.append(document.createTextNode(text.slice(last, at)));
    const mark = document.createElement('mark');
    mark.textContent = match[0];
    fragment.append(mark);
    last = at + match[0].length;
  }
  if (last < text.length) fragment.append(document.createTextNode(text.slice(last)));
  return fragment;
}

/** A page label: "p. 3", or "pp. 3–4" for a passage over two pages; "" when not paginated. */
export function pageLabel(page: number | undefined, lastPage: number | undefined): string {
  if (page === undefined) return '';
  return lastPage !== undefined && lastPage > page ? `pp. ${page}–${lastPage}` : `p. ${page}`;
}
