import { el } from './dom.js';
import { safeHttpUrl } from './safe-url.js';

/**
 * A link to the document's source when `url` is http(s), else nothing. A sandboxed view cannot open
 * a window itself: the click asks the host (`openLink`), which may confirm with the person first.
 */
export function sourceLink(url: string | undefined, openLink: (url: string) => void): HTMLAnchorElement | undefined {
  const href = safeHttpUrl(url);
  if (href === undefined) return undefined;
  const a = el('a', 'source-link', 'Source');
  a.href = href;
  a.rel = 'noopener noreferrer';
  a.target = '_blank';
  a.title = href;
  a.addEventListener('click', (event) => {
    event.preventDefault();
    openLink(href);
  });
  return a;
}
