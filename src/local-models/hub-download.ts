// Downloads a model from a Hugging Face hub (or a mirror of one) into MODELS_DIR/<owner>/<name>, in
// the repository's own layout: the files every model needs, and the declarations (pooling, modules,
// prompts) it has. A port that lacks them (Xenova/* copies only the ONNX graph and the tokenizer) gets
// them from the model it names as its `base_model`. Each file is written beside its place and renamed
// into it, so an interrupted download leaves no half file where the loader looks.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LocalModelError } from './local-model-error.js';
import { modelDir, OPTIONAL_FILES, REQUIRED_FILES } from './model-folder.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';

export interface FetchModelOptions {
  fetch?: typeof globalThis.fetch;
  /** The hub's origin. Default https://huggingface.co. */
  hubUrl?: string;
  /** Called after each file, for a command line's progress. */
  onFile?: (file: string, bytes: number) => void;
}

async function download(fetcher: typeof globalThis.fetch, url: string): Promise<Uint8Array | undefined> {
  let response: Response;
  try {
    response = await fetcher(url, { redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new LocalModelError('model_missing', `cannot reach ${new URL(url).origin} (${cause?.code ?? cause?.message ?? (error as Error).message})`);
  }
  if (response.status === 404) return undefined;
  if (!response.ok) throw new LocalModelError('model_missing', `GET ${url} answered ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Fetches model `id` into `modelsDir`; resolves with the bytes written. Throws `model_missing` naming what failed. */
export async function fetchModel(modelsDir: string, id: string, options: FetchModelOptions = {}): Promise<number> {
  const { fetch: fetcher = globalThis.fetch, hubUrl = DEFAULT_HUB_URL, onFile } = options;
  const dir = modelDir(modelsDir, id);
  const base = hubUrl.replace(/\/+$/, '');
  const fileUrl = (repo: string, file: string) => `${base}/${repo}/resolve/main/${file}`;
  let total = 0;
  const put = (file: string, bytes: Uint8Array) => {
    const path = join(dir, file);
    mkdirSync(dirname(path), { recursive: true });
    const temporary = `${path}.download`;
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
    total += bytes.length;
    onFile?.(file, bytes.length);
  };
  try {
    for (const file of REQUIRED_FILES) {
      const bytes = await download(fetcher, fileUrl(id, file));
      if (bytes === undefined) throw new LocalModelError('model_missing', `${id} has no ${file} on ${base}: is it an ONNX model repository (such as the Xenova/* ports)?`);
      put(file, bytes);
    }
    const readme = await download(fetcher, fileUrl(id, 'README.md'));
    const upstream = readme === undefined ? undefined : /^base_model:\s*['"]?([\w.-]+\/[\w.-]+)/m.exec(new TextDecoder().decode(readme))?.[1];
    for (const file of OPTIONAL_FILES) {
      const bytes = (await download(fetcher, fileUrl(id, file))) ?? (upstream === undefined ? undefined : await download(fetcher, fileUrl(upstream, file)));
      if (bytes !== undefined) put(file, bytes);
    }
  } catch (error) {
    if (error instanceof LocalModelError) throw new LocalModelError(error.code, `downloading model ${id} failed: ${error.message}`);
    throw error;
  } finally {
    for (const file of [...REQUIRED_FILES, ...OPTIONAL_FILES]) rmSync(join(dir, `${file}.download`), { force: true });
  }
  return total;
}
