// "Did you mean": when a caller names a document the index does not hold, suggest the nearest known
// sources so the next call can succeed. Edit distance on the lowercased path, with a bonus for an
// identical file name, is enough for typos, wrong folders and stray "./" or "../" prefixes.
//
// The caller chooses the name, so the cost must not be the caller's to choose: the name is cut to a
// little more than the longest known source (extra characters only add the same distance to every
// candidate), candidates that cannot beat the current third best stop early, and past a budget of
// comparison cells (a very large corpus) a cheap prefix/suffix likeness replaces edit distance.
//
// Only close sources are suggested: one sharing the file name (or its stem), or within an edit distance
// of a third of the name's length (at least 2). Three unrelated documents would only mislead a model.

const MAX_COMPARED_CHARS = 200;
/** Upper bound on edit-distance cells per call (name length × candidate lengths), ~2 ms of work. */
const CELL_BUDGET = 1_000_000;

let rowA = new Int32Array(256);
let rowB = new Int32Array(256);

/**
 * Levenshtein distance of `a` and `b`, or any value greater than `cutoff` as soon as the distance is
 * known to exceed it (every cell of a row above it).
 */
function editDistance(a: string, b: string, cutoff: number): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > cutoff) return cutoff + 1;
  if (rowA.length <= b.length) {
    rowA = new Int32Array(b.length + 1);
    rowB = new Int32Array(b.length + 1);
  }
  let previous = rowA;
  let current = rowB;
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    const code = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = code === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > cutoff) return cutoff + 1;
    const swap = previous;
    previous = current;
    current = swap;
  }
  return previous[b.length]!;
}

/** A cheap stand-in for edit distance on huge corpora: the characters not shared as prefix or suffix. */
function unsharedChars(a: string, b: string): number {
  const shortest = Math.min(a.length, b.length);
  let prefix = 0;
  while (prefix < shortest && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < shortest - prefix && a.charCodeAt(a.length - 1 - suffix) === b.charCodeAt(b.length - 1 - suffix)) suffix++;
  return Math.max(a.length, b.length) - prefix - suffix;
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** The largest edit distance at which a source without the name's file name still counts as close. */
export function closeDistance(name: string): number {
  return Math.max(2, Math.floor(name.length / 3));
}

/** Up to `limit` known sources close to `wanted` (see above), best first; none when nothing is close. */
export function closestSources(wanted: string, known: readonly string[], limit = 3): string[] {
  let longest = 0;
  let cells = 0;
  for (const source of known) {
    const length = Math.min(source.length, MAX_COMPARED_CHARS);
    if (length > longest) longest = length;
    cells += length;
  }
  const target = wanted
    .slice(0, Math.min(MAX_COMPARED_CHARS, longest + 16))
    .toLowerCase()
    .replace(/^(\.{0,2}\/)+/, '');
  const targetBase = baseName(target);
  const targetStem = targetBase.replace(/\.[a-z0-9]+$/, '');
  const exact = cells * Math.max(target.length, 1) <= CELL_BUDGET;
  const close = closeDistance(target);

  // The best `limit` so far, kept sorted; a candidate must beat the last to enter.
  const best: Array<{ source: string; score: number }> = [];
  const before = (x: { source: string; score: number }, y: { source: string; score: number }) =>
    x.score < y.score || (x.score === y.score && x.source < y.source);
  for (const source of known) {
    const candidate = source.slice(0, MAX_COMPARED_CHARS).toLowerCase();
    let bonus = 0;
    if (baseName(candidate) === targetBase) bonus = -100;
    else if (targetBase.length > 2 && candidate.includes(targetStem)) bonus = -50;
    const worst = best.length === limit ? best[best.length - 1]!.score : Infinity;
    // A candidate whose score cannot reach the current last place stops early.
    const cutoff = Math.min(worst === Infinity ? Infinity : worst - bonus, bonus === 0 ? close : Infinity);
    const distance = exact ? editDistance(target, candidate, cutoff) : unsharedChars(target, candidate);
    if (bonus === 0 && distance > close) continue;
    const entry = { source, score: distance + bonus };
    if (best.length === limit && !before(entry, best[best.length - 1]!)) continue;
    let at = best.length;
    while (at > 0 && before(entry, best[at - 1]!)) at--;
    best.splice(at, 0, entry);
    if (best.length > limit) best.pop();
  }
  return best.map((x) => x.source);
}

/** ` Closest known sources: "a.md", "b.md".`, or a pointer to list_documents when none is close. */
export function suggestionSentence(wanted: string, known: readonly string[]): string {
  if (known.length === 0) return ' The index holds no documents.';
  const closest = closestSources(wanted, known);
  if (closest.length === 0) return ' No known source has a name close to it; call list_documents to see them all.';
  return ` Closest known sources: ${closest.map((s) => `"${s}"`).join(', ')}. Call list_documents to see them all.`;
}
