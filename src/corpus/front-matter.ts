import { type DocumentOptions, type ParseOptions, parse, type SchemaOptions, type ToJSOptions, YAMLParseError } from 'yaml';

/** What the YAML front matter of a document says, and where its body begins. */
export interface FrontMatter {
  /** Offset just after the closing `---` line (and its line break); 0 when there is no block. */
  bodyStart: number;
  /** The `title` value when present and a non-empty scalar, trimmed. */
  title?: string;
  /** The `url` value when it is an absolute http(s) URL: the document's own link, which wins over SOURCE_URL_TEMPLATE. */
  url?: string;
  /** Set when a delimited block exists but is not read (not valid YAML, hostile, too long); the block is still treated as front matter. */
  error?: string;
}

/**
 * Front matter longer than this (in UTF-16 code units) is not parsed. Real front matter is a few
 * hundred characters; YAML parsing is superlinear in some shapes (unique-key checks, flow mappings),
 * so a file that is mostly front matter could otherwise hold a build for seconds.
 */
export const MAX_FRONT_MATTER_CHARS = 64 * 1024;

// A block opens with `---` alone on the first line and closes at the next line that is `---` alone.
// Trailing spaces are tolerated. A language tag (`---js`) is not front matter: such blocks were once
// evaluated as code by front-matter libraries, and here they are body text.
const OPENING = /^---[ \t]*(?:\r\n|\r|\n)/;
const CLOSING = /^---[ \t]*(?:\r\n|\r|\n|$)/m;

const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions = {
  // Errors throw; warnings (an unknown tag, say) are not printed to the console.
  logLevel: 'error',
  // The message names the problem; the line is added below, counted in the file rather than the block.
  prettyErrors: false,
  // Against "billion laughs": aliases that would expand past this many nodes are an error (the library's
  // default, stated so it does not drift).
  maxAliasCount: 100,
  // `title: 2024-05-01` reads as a date, as it did under YAML 1.1 front matter parsers.
  customTags: ['timestamp'],
};

/**
 * Finds and parses a leading YAML front matter block. A block that parses to something other than a
 * mapping (e.g. a reStructuredText overline title `---\nTitle\n---`) is not front matter.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const opening = OPENING.exec(text);
  if (!opening) return { bodyStart: 0 };
  const afterOpening = opening[0].length;
  const closing = CLOSING.exec(text.slice(afterOpening));
  if (!closing) return { bodyStart: 0 };
  const bodyStart = afterOpening + closing.index + closing[0].length;
  const yaml = text.slice(afterOpening, afterOpening + closing.index);
  if (yaml.length > MAX_FRONT_MATTER_CHARS) {
    return {
      bodyStart,
      error: `front matter is ${yaml.length} characters, over the ${MAX_FRONT_MATTER_CHARS} that are read; its title is not read`,
    };
  }

  let data: unknown;
  try {
    data = parse(yaml, YAML_OPTIONS);
  } catch (error) {
    return { bodyStart, error: `front matter is not valid YAML (${describe(error, yaml)})` };
  }
  if (data === null || data === undefined) return { bodyStart };
  if (typeof data !== 'object' || Array.isArray(data)) return { bodyStart: 0 };
  const title = scalarText((data as Record<string, unknown>)['title']);
  const url = scalarText((data as Record<string, unknown>)['url']);
  return { bodyStart, ...(title === undefined ? {} : { title }), ...(url !== undefined && /^https?:\/\/[^\s]+$/i.test(url) ? { url } : {}) };
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value).trim();
    return text === '' ? undefined : text;
  }
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString().slice(0, 10);
  return undefined;
}

/** The parser's complaint in one line, with the file's line number when the parser gives a position. */
function describe(error: unknown, yaml: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n', 1)[0]?.trim() ?? message;
  if (!(error instanceof YAMLParseError)) return first;
  // The block starts on the file's second line, after the opening delimiter.
  const line = countLineBreaks(yaml, error.pos[0]) + 2;
  return `${first}, line ${line}`;
}

function countLineBreaks(text: string, end: number): number {
  let count = 0;
  for (let i = 0; i < end && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) count++;
  }
  return count;
}
