/** How a file's headings are written, chosen from its extension. */
export type TextFormat = 'markdown' | 'restructuredtext' | 'text';

/**
 * The first heading of the body, or undefined if it has none. Markdown (and plain text, which often
 * follows the same conventions) uses ATX (`# Title`) and setext (`Title` over `===`/`---`) headings,
 * ignoring fenced code blocks; reStructuredText uses underlined or over-and-underlined section titles.
 */
export function headingTitle(text: string, bodyStart: number, format: TextFormat): string | undefined {
  const lines = text.slice(bodyStart).split(/\r?\n|\r/);
  return format === 'restructuredtext' ? rstTitle(lines) : markdownTitle(lines);
}

const ATX = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// Lines that start a block of their own, so they cannot be the text of a setext heading.
const NOT_PARAGRAPH = /^(?: {4}|\t| {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>|#|<|\|))/;

function markdownTitle(lines: readonly string[]): string | undefined {
  let fence: string | undefined;
  let paragraph: string[] = [];
  for (const line of lines) {
    if (fence !== undefined) {
      if (line.trim().startsWith(fence)) fence = undefined;
      continue;
    }
    const fenceOpen = FENCE.exec(line);
    if (fenceOpen) {
      fence = fenceOpen[1];
      paragraph = [];
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      const title = clean(atx[1] ?? '');
      if (title !== '') return title;
      paragraph = [];
      continue;
    }
    if (paragraph.length > 0 && SETEXT_UNDERLINE.test(line)) {
      const title = clean(paragraph.join(' '));
      if (title !== '') return title;
    }
    if (line.trim() === '' || NOT_PARAGRAPH.test(line) || THEMATIC_BREAK.test(line)) paragraph = [];
    else paragraph.push(line);
  }
  return undefined;
}

// Any non-alphanumeric printable ASCII character may adorn a reStructuredText section title.
const ADORNMENT = /^([!-/:-@[-`{-~])\1{2,}[ \t]*$/;

function rstTitle(lines: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i] ?? '';
    const next = lines[i + 1] ?? '';
    const overline = ADORNMENT.exec(line);
    if (overline) {
      // Over-and-underlined: the title may be inset, and the underline must repeat the overline.
      const after = lines[i + 2] ?? '';
      if (next.trim() !== '' && !ADORNMENT.test(next) && after.trim() === line.trim() && clean(next) !== '') {
        return clean(next);
      }
      continue;
    }
    if (line.trim() === '' || /^\s/.test(line)) continue;
    if (ADORNMENT.test(next) && (i === 0 || (lines[i - 1] ?? '').trim() === '') && clean(line) !== '') return clean(line);
  }
  return undefined;
}

const IMAGE = /!\[[^\]]*\]\([^)]*\)/g;
const LINK = /\[([^\]]*)\]\([^)]*\)/g;
/** Titles travel with every search result, so a runaway setext paragraph is cut short. */
export const MAX_TITLE_CHARS = 200;

/**
 * Plain words of a heading: images (badges) dropped, links reduced to their text, runs of whitespace
 * collapsed (a setext heading may span several lines). Empty when nothing readable is left.
 */
function clean(title: string): string {
  const plain = title.replace(IMAGE, ' ').replace(LINK, '$1').replace(/\s+/g, ' ').trim();
  return plain.length > MAX_TITLE_CHARS ? `${plain.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…` : plain;
}
