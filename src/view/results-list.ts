// The results of search_documents as a list, best first: title, heading path, pages, the snippet with
// the query's words marked, and a link to the source where the hit has one. A click opens the passage.
import { button, el } from './dom.js';
import { markedText, pageLabel, queryStems } from './marked-text.js';
import { sourceLink } from './source-link.js';
import type { Hit, SearchResults } from './tool-results.js';

export interface ResultsActions {
  open(hit: Hit): void;
  openLink(url: string): void;
}

export function resultsList(results: SearchResults, actions: ResultsActions): HTMLElement {
  const stems = queryStems(results.query);
  const header = el('header', 'bar', el('h1', 'query', results.query === '' ? 'Results' : `“${results.query}”`), el('span', 'muted', `${results.results.length} result${results.results.length === 1 ? '' : 's'}`));
  const note = results.note === undefined ? undefined : el('p', 'note', results.note);
  const list = el('ol', 'results');
  for (const hit of results.results) {
    const pages = pageLabel(hit.page, hit.last_page);
    const open = button(hit.title || hit.source, 'hit-title', () => actions.open(hit));
    open.setAttribute('aria-label', `Open ${hit.title || hit.source} at this passage`);
    const meta = el('div', 'hit-meta', el('span', 'source', hit.source), hit.heading !== '' && el('span', 'heading', hit.heading), pages !== '' && el('span', 'pages', pages), sourceLink(hit.url, actions.openLink));
    const snippet = el('p', 'snippet');
    snippet.append(markedText(hit.snippet, stems));
    const item = el('li', 'hit', open, meta, snippet);
    item.dataset.chunkId = hit.chunk_id;
    list.append(item);
  }
  return el('section', 'results-view', header, note, list);
}
