// Parses the Prometheus text exposition format into samples, so tests assert on exact series
// (name + label set) and values rather than loosely matching substrings.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/y;

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  let match: RegExpExecArray | null;
  while (LABEL.lastIndex < text.length && (match = LABEL.exec(text))) {
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
  }
  if (LABEL.lastIndex !== text.length && text.trim() !== '') throw new Error(`unparseable labels: {${text}}`);
  return labels;
}

function parseValue(raw: string): number {
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  if (raw.toLowerCase() === 'nan') return NaN; // prom-client writes "Nan"
  const value = Number(raw);
  if (Number.isNaN(value)) throw new Error(`unparseable sample value: ${raw}`);
  return value;
}

/** Every sample line of an exposition; throws on a line that is neither a sample nor a comment. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`unparseable exposition line: ${line}`);
    samples.push({ name: match[1]!, labels: parseLabels(match[2] ?? ''), value: parseValue(match[3]!) });
  }
  return samples;
}

/** The value of the one sample with exactly this name and these labels, or undefined. */
export function sampleValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  const found = samples.filter(
    (s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`several samples match ${name}${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** All samples of a metric family's series, e.g. every label set of a counter. */
export function samplesNamed(samples: readonly Sample[], name: string): Sample[] {
  return samples.filter((s) => s.name === name);
}
