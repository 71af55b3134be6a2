// HTML: the readable text of a page, with its h1–h6 as sections.
//
// htmlparser2 is used as a streaming (SAX-style) parser: it is forgiving of real-world markup (implied
// end tags, unquoted attributes), decodes entities in text and attributes, and hands over tags and
// text as callbacks, so no DOM is built and nothing here recurses: a page nested 100,000 levels deep
// costs one array entry per level, and is refused past MAX_HTML_DEPTH. A DOM-based converter
// (html-to-text, turndown) walks its tree recursively and gives no offsets for headings, which the
// sections need.
import { Parser } from 'htmlparser2';
import type { Section } from '../document.js';
import { type Extracted, ExtractionError, plainTitle } from './extracted.js';

/** Pages nested deeper than this are refused; browsers' parsers stop nesting at a few hundred levels. */
export const MAX_HTML_DEPTH = 2000;

/** Elements whose text is not part of the page's main text. */
const LEFT_OUT = new Set([
  'script', 'style', 'noscript', 'template', 'nav', 'header', 'footer', 'head', 'svg', 'math',
  'iframe', 'object', 'embed', 'canvas', 'select', 'datalist', 'dialog',
]);
/** Elements that end a paragraph: a blank line before and after. */
const PARAGRAPH = new Set([
  'p', 'div', 'section', 'article', 'main', 'aside', 'blockquote', 'pre', 'table', 'ul', 'ol', 'dl',
  'figure', 'hr', 'form', 'fieldset', 'address', 'details', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'body',
]);
/** Elements that start a line of their own. */
const LINE = new Set(['li', 'br', 'tr', 'dt', 'dd', 'caption', 'figcaption', 'summary', 'legend', 'option']);
const CELL = new Set(['td', 'th']);
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

interface Open {
  name: string;
  /** This element or an ancestor is left out. */
  leftOut: boolean;
}

export function extractHtml(html: string): Extracted {
  const parts: string[] = [];
  let length = 0;
  let pendingBreaks = 0;
  let pendingSpace = false;
  const stack: Open[] = [];
  let leftOutDepth = 0;
  let preDepth = 0;
  let titleText: string[] | undefined;
  let documentTitle: string | undefined;
  let firstH1: string | undefined;
  const sections: Section[] = [];
  let heading: { level: number; start: number; words: string[] } | undefined;

  const brk = (count: number): void => {
    pendingBreaks = Math.max(pendingBreaks, count);
  };
  const emit = (chunk: string): void => {
    if (chunk === '') return;
    if (length > 0) {
      if (pendingBreaks > 0) {
        const breaks = '\n'.repeat(pendingBreaks);
        parts.push(breaks);
        length += breaks.length;
      } else if (pendingSpace) {
        parts.push(' ');
        length += 1;
      }
    }
    pendingBreaks = 0;
    pendingSpace = false;
    if (heading && heading.start < 0) heading.start = length;
    parts.push(chunk);
    length += chunk.length;
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (stack.length >= MAX_HTML_DEPTH) {
          throw new ExtractionError('over_limit', `elements nested more than ${MAX_HTML_DEPTH} levels deep (a broken or hostile page)`);
        }
        const parentLeftOut = stack.at(-1)?.leftOut ?? false;
        const leftOut = parentLeftOut || LEFT_OUT.has(name) || isHidden(attributes);
        stack.push({ name, leftOut });
        // An <svg> carries a <title> of its own (a tooltip), which is not the page's.
        if (name === 'title' && documentTitle === undefined && titleText === undefined && !stack.some((o) => o.name === 'svg')) titleText = [];
        if (leftOut) {
          leftOutDepth += 1;
          return;
        }
        if (name === 'pre') preDepth += 1;
        if (PARAGRAPH.has(name)) brk(2);
        else if (LINE.has(name)) brk(1);
        else if (CELL.has(name)) pendingSpace = true;
        const level = headingLevel(name);
        if (level > 0 && heading === undefined) heading = { level, start: -1, words: [] };
      },
      ontext(text) {
        if (titleText !== undefined) {
          titleText.push(text);
          return;
        }
        if (leftOutDepth > 0) return;
        if (heading) heading.words.push(text);
        if (preDepth > 0) {
          emit(text.replace(/\r\n?/g, '\n'));
          return;
        }
        // Collapse runs of HTML whitespace as a browser does (a no-break space stays); leading and
        // trailing space separates words.
        const collapsed = text.replace(/[ \t\n\r\f]+/g, ' ');
        if (collapsed === ' ' || collapsed === '') {
          if (collapsed === ' ') pendingSpace = true;
          return;
        }
        const leading = collapsed.startsWith(' ');
        const trailing = collapsed.endsWith(' ');
        if (leading) pendingSpace = true;
        emit(collapsed.slice(leading ? 1 : 0, trailing ? -1 : undefined));
        if (trailing) pendingSpace = true;
      },
      onclosetag(name) {
        const open = stack.pop();
        if (open === undefined) return;
        if (name === 'title' && titleText !== undefined) {
          const title = plainTitle(titleText.join(''));
          titleText = undefined;
          if (title !== '') documentTitle = title;
        }
        if (open.leftOut) {
          leftOutDepth -= 1;
          return;
        }
        if (name === 'pre') preDepth -= 1;
        if (PARAGRAPH.has(name)) brk(2);
        else if (LINE.has(name) && name !== 'br') brk(1);
        const level = headingLevel(name);
        if (level > 0 && heading !== undefined && heading.level === level) {
          const title = plainTitle(heading.words.join(' '));
          if (heading.start >= 0) {
            sections.push({ start: heading.start, headingStart: heading.start, contentStart: length, level, title });
            if (level === 1 && firstH1 === undefined && title !== '') firstH1 = title;
          }
          heading = undefined;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const title = documentTitle ?? firstH1;
  return { text: parts.join(''), bodyStart: 0, ...(title === undefined ? {} : { title }), sections };
}

function headingLevel(name: string): number {
  return name.length === 2 && name[0] === 'h' && name[1]! >= '1' && name[1]! <= '6' ? Number(name[1]) : 0;
}

function isHidden(attributes: Record<string, string>): boolean {
  if ('hidden' in attributes) return true;
  if (attributes['aria-hidden']?.trim().toLowerCase() === 'true') return true;
  const style = attributes['style'];
  return style !== undefined && HIDDEN_STYLE.test(style);
}
