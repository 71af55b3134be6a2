// The two wink packages ship no type declarations; the bench uses only the calls typed here.
declare module 'wink-bm25-text-search' {
  interface Bm25Engine {
    defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number } }): boolean;
    definePrepTasks(tasks: ReadonlyArray<(input: never) => unknown>, field?: string): number;
    addDoc(doc: Record<string, string>, id: string): number;
    consolidate(fp?: number): boolean;
    search(text: string, limit?: number): Array<[string, number]>;
  }
  export default function bm25(): Bm25Engine;
}

declare module 'wink-nlp-utils' {
  type Task = (input: never) => unknown;
  const nlp: {
    string: Record<'lowerCase' | 'removeExtraSpaces' | 'tokenize0', Task>;
    tokens: Record<'removeWords' | 'stem', Task>;
  };
  export default nlp;
}
