// "Did you mean": when a caller names a document the index does not hold, suggest the nearest known
// sources so the next call can succeed. Edit distance on the lowercased path, with a bonus for an
// identical file name, is enough for typos, wrong folders and stray "./" or "../" prefixes.

const MAX_COMPARED_CHARS = 200;

function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** Up to `limit` known sources closest to `wanted`, best first. */
export function closestSources(wanted: string, known: readonly string[], limit = 3): string[] {
  const target = wanted.slice(0, MAX_COMPARED_CHARS).toLowerCase().replace(/^(\.{0,2}\/)+/, '');
  const targetBase = baseName(target);
  return known
    .map((source) => {
      const candidate = source.toLowerCase();
      let score = editDistance(target, candidate.slice(0, MAX_COMPARED_CHARS));
      if (baseName(candidate) === targetBase) score -= 100;
      else if (targetBase.length > 2 && candidate.includes(targetBase.replace(/\.[a-z0-9]+$/, ''))) score -= 50;
      return { source, score };
    })
    .sort((x, y) => x.score - y.score || (x.source < y.source ? -1 : 1))
    .slice(0, limit)
    .map((x) => x.source);
}

/** ` Closest known sources: "a.md", "b.md".` or a pointer to list_documents when the corpus is empty. */
export function suggestionSentence(wanted: string, known: readonly string[]): string {
  const closest = closestSources(wanted, known);
  if (closest.length === 0) return ' The index holds no documents.';
  return ` Closest known sources: ${closest.map((s) => `"${s}"`).join(', ')}. Call list_documents to see them all.`;
}
