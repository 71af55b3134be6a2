/**
 * A growing list of term ids (or other unsigned 32-bit numbers) in one typed array: where a build
 * collects the terms of a chunk's fields and a batch's chunk offsets, instead of JavaScript arrays
 * (millions of numbers over a large corpus, all garbage once the index is built).
 */
export class TermIdList {
  #ids: Uint32Array<ArrayBuffer>;
  #length = 0;

  /** `capacity`: ids room is made for at first; the list doubles as it fills. */
  constructor(capacity = 1024) {
    this.#ids = new Uint32Array(Math.max(1, capacity));
  }

  get length(): number {
    return this.#length;
  }

  push(id: number): void {
    if (this.#length === this.#ids.length) {
      const bigger = new Uint32Array(this.#ids.length * 2);
      bigger.set(this.#ids);
      this.#ids = bigger;
    }
    this.#ids[this.#length] = id;
    this.#length += 1;
  }

  /** Empties the list, keeping its room. */
  clear(): void {
    this.#length = 0;
  }

  /** The ids pushed so far, in an array of their own. */
  copy(): Uint32Array {
    return this.#ids.slice(0, this.#length);
  }

  /** The ids pushed so far, as a view that later pushes may leave behind (take it when done). */
  view(): Uint32Array {
    return this.#ids.subarray(0, this.#length);
  }
}
