import matter from 'gray-matter';

/** What the YAML front matter of a document says, and where its body begins. */
export interface FrontMatter {
  /** Offset just after the closing `---` line (and its line break); 0 when there is no block. */
  bodyStart: number;
  /** The `title` value when present and a non-empty scalar, trimmed. */
  title?: string;
  /** Set when a delimited block exists but is not valid YAML; the block is still treated as front matter. */
  error?: string;
}

// A block opens with `---` alone on the first line (no language tag: gray-matter would hand `---js`
// to `eval`) and closes at the next line that is `---` alone. Trailing spaces are tolerated.
const OPENING = /^---[ \t]*(?:\r\n|\r|\n)/;
const CLOSING = /^---[ \t]*(?:\r\n|\r|\n|$)/m;

const refuse = (): object => {
  throw new Error('only YAML front matter is supported');
};
// Passing options also turns off gray-matter's process-wide cache keyed by file content, which would
// otherwise keep every document's text alive for the life of the process.
const MATTER_OPTIONS = {
  language: 'yaml',
  engines: { js: refuse, javascript: refuse, coffee: refuse, coffeescript: refuse, cson: refuse },
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

  let data: unknown;
  try {
    // The block is handed over with normalised delimiters so gray-matter sees exactly what we found.
    data = matter(`---\n${yaml.replace(/\r\n?/g, '\n')}---\n`, MATTER_OPTIONS).data;
  } catch (error) {
    const detail = error instanceof Error ? firstLine(error.message) : String(error);
    return { bodyStart, error: `front matter is not valid YAML (${detail})` };
  }
  if (data === null || data === undefined) return { bodyStart };
  if (typeof data !== 'object' || Array.isArray(data)) return { bodyStart: 0 };
  const title = scalarText((data as Record<string, unknown>)['title']);
  return title === undefined ? { bodyStart } : { bodyStart, title };
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') {
    const text = String(value).trim();
    return text === '' ? undefined : text;
  }
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString().slice(0, 10);
  return undefined;
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0]?.trim() ?? message;
}
