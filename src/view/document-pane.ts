// A passage in its document: the text around it, fetched through the host with get_document, the
// passage highlighted and scrolled to, with buttons to read earlier and further text. PDF passages show
// their pages. All document text goes in as text nodes.
import { button, el } from './dom.js';
import { pageLabel } from './marked-text.js';
import { sourceLink } from './source-link.js';
import type { DocumentPage } from './tool-results.js';

/** Characters of context fetched before a passage, and per "Read on" / "Earlier" step. */
export const CONTEXT_CHARS = 2_000;
export const STEP_CHARS = 6_000;

export interface DocumentActions {
  /** get_document through the host. */
  read(source: string, offset: number, maxChars: number): Promise<DocumentPage>;
  openLink(url: string): void;
  back?: () => void;
}

export interface OpenPassage {
  source: string;
  title: string;
  start: number;
  end: number;
  page?: number;
  last_page?: number;
  url?: string;
}

/** What get_document should be asked for to show `passage` with context on both sides. */
export function windowAround(passage: { start: number; end: number }): { offset: number; maxChars: number } {
  const offset = Math.max(0, passage.start - CONTEXT_CHARS);
  return { offset, maxChars: passage.end - offset + CONTEXT_CHARS };
}

/**
 * The pane for `first`, a page of the document (from windowAround, or the model's own get_document),
 * with `passage` highlighted when given.
 */
export function documentPane(first: DocumentPage, passage: OpenPassage | undefined, actions: DocumentActions): HTMLElement {
  let from = first.offset;
  let text = first.text;
  let next = first.next_offset;
  const total = first.total_chars;

  const pages = pageLabel(passage?.page ?? first.page, passage?.last_page ?? first.last_page);
  const header = el(
    'header',
    'bar',
    actions.back && button('← Results', 'back', actions.back),
    el('h1', 'doc-title', first.title || first.source),
  );
  const meta = el('div', 'hit-meta', el('span', 'source', first.source), pages !== '' && el('span', 'pages', pages), sourceLink(passage?.url ?? first.url, actions.openLink));
  const article = el('article', 'doc-text');
  const status = el('p', 'muted status');
  const earlier = button('↑ Earlier text', 'more', () => void more('earlier'));
  const later = button('Read on ↓', 'more', () => void more('later'));
  let highlight: HTMLElement | undefined;

  const render = () => {
    article.replaceChildren();
    highlight = undefined;
    if (passage !== undefined && passage.end > from && passage.start < from + text.length) {
      const a = Math.max(0, passage.start - from);
      const b = Math.min(text.length, passage.end - from);
      highlight = el('mark', 'passage', text.slice(a, b));
      article.append(text.slice(0, a), highlight, text.slice(b));
    } else {
      article.append(text);
    }
    earlier.hidden = from === 0;
    later.hidden = next === null;
    status.textContent = `Characters ${from.toLocaleString()}–${(from + text.length).toLocaleString()} of ${total.toLocaleString()}`;
  };

  async function more(direction: 'earlier' | 'later'): Promise<void> {
    const control = direction === 'earlier' ? earlier : later;
    control.disabled = true;
    try {
      if (direction === 'later' && next !== null) {
        const page = await actions.read(first.source, next, STEP_CHARS);
        text += page.text;
        next = page.next_offset;
      } else if (direction === 'earlier' && from > 0) {
        const offset = Math.max(0, from - STEP_CHARS);
        const page = await actions.read(first.source, offset, from - offset);
        text = page.text + text;
        from = offset;
      }
      render();
      status.classList.remove('error');
    } catch (error) {
      status.textContent = error instanceof Error ? error.message : String(error);
      status.classList.add('error');
    } finally {
      control.disabled = false;
    }
  }

  render();
  const pane = el('section', 'document-view', header, meta, earlier, article, later, status);
  // Once in the page, the passage is brought into view (the caller calls this after inserting the pane).
  pane.addEventListener('pane-shown', () => highlight?.scrollIntoView({ block: 'center' }));
  return pane;
}
