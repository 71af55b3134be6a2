/**
 * A growing list of term ids in one typed array: where a build collects the terms of every chunk,
 * field after field, instead of one JavaScript array per field of each chunk (millions of numbers
 * over a large corpus, all garbage once the index is built).
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

  /** The ids pushed so far, as a view that later pushes may leave behind (take it when done). */
  view(): Uint32Array {
    return this.#ids.subarray(0, this.#length);
  }
}
