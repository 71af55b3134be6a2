// The chunk id `<source>#<n>`: a document's source path, '#', and the chunk's number in that
// document counted from 0. Built and read only here, so the index and the tools agree on its form.

/** The id of chunk `n` (from 0) of the document at `source`. */
export function chunkId(source: string, n: number): string {
  return `${source}#${n}`;
}

/**
 * The source and chunk number of `id`, or undefined when it is not of the form `<source>#<n>` (n a
 * decimal number without leading zeros). The last '#' splits, so a source may itself contain '#'.
 */
export function parseChunkId(id: string): { source: string; n: number } | undefined {
  const hash = id.lastIndexOf('#');
  if (hash < 0) return undefined;
  const digits = id.slice(hash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(digits)) return undefined;
  return { source: id.slice(0, hash), n: Number(digits) };
}
