import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeDistance, closestSources, suggestionSentence } from './closest-sources.js';

/** The plain model: full edit distance to every source, bonus for the file name, sort, take three. */
function naiveClosest(wanted: string, known: readonly string[], limit = 3): string[] {
  const distance = (a: string, b: string): number => {
    let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      const current = [i];
      for (let j = 1; j <= b.length; j++) {
        current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
      previous = current;
    }
    return previous[b.length]!;
  };
  const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  const target = wanted.slice(0, 200).toLowerCase().replace(/^(\.{0,2}\/)+/, '');
  return known
    .map((source) => {
      const candidate = source.toLowerCase().slice(0, 200);
      let score = distance(target, candidate);
      if (base(candidate) === base(target)) score -= 100;
      else if (base(target).length > 2 && candidate.includes(base(target).replace(/\.[a-z0-9]+$/, ''))) score -= 50;
      return { source, score };
    })
    .filter(({ score }) => score < 0 || score <= closeDistance(target))
    .sort((x, y) => x.score - y.score || (x.source < y.source ? -1 : 1))
    .slice(0, limit)
    .map((x) => x.source);
}

const segment = fc.string({ unit: fc.constantFrom(...'abcdeXY-_.'), minLength: 1, maxLength: 8 });
const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `${parts.join('/')}.md`);

describe('closestSources', () => {
  it('ranks exactly like full edit distance for names no longer than the longest source', () => {
    fc.assert(
      fc.property(fc.uniqueArray(path, { minLength: 1, maxLength: 30 }), fc.oneof(path, segment, fc.string({ maxLength: 20 })), (known, wanted) => {
        const longest = Math.max(...known.map((s) => s.length));
        fc.pre(wanted.length <= longest + 16);
        expect(closestSources(wanted, known)).toEqual(naiveClosest(wanted, known));
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['a typo', 'guides/deplyo.md', 'guides/deploy.md'],
    ['a wrong folder', 'deploy.md', 'guides/deploy.md'],
    ['a traversal prefix', '../guides/deploy.md', 'guides/deploy.md'],
  ])('suggests the intended source for %s', (_name, wanted, expected) => {
    expect(closestSources(wanted, ['README.md', 'guides/deploy.md', 'guides/develop.md', 'notes/deploy-old.txt'])[0]).toBe(expected);
  });

  it('still suggests sources in a corpus too large for edit distance within its budget', () => {
    const known = Array.from({ length: 20_000 }, (_, i) => `archive/${String(i).padStart(5, '0')}/report-${i}.md`);
    expect(closestSources('archive/01234/report-1234.md', known)[0]).toBe('archive/01234/report-1234.md');
    expect(closestSources('archive/01234/report-1234.txt', known)[0]).toBe('archive/01234/report-1234.md');
    expect(closestSources('x'.repeat(2000), known)).toEqual([]);
  });

  it.each(['secret.txt', '/etc/passwd', 'zebra-manual.pdf', 'x'])('suggests nothing for %j, which is close to no source', (wanted) => {
    const known = ['README.md', 'guides/deploy.md', 'guides/develop.md', 'notes/deploy-old.txt'];
    expect(closestSources(wanted, known)).toEqual([]);
    expect(suggestionSentence(wanted, known)).toBe(' No known source has a name close to it; call list_documents to see them all.');
  });
});
