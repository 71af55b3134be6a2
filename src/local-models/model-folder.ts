// A model's folder in MODELS_DIR, in the layout of a Hugging Face model repository, and the rules the
// model declares there: which ONNX file runs, its token limit, its pooling (sentence-transformers'
// 1_Pooling/config.json), whether it normalises (modules.json), and the prefixes it puts before a
// query or a passage (config_sentence_transformers.json `prompts`). Read by the model's thread.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { LocalModelError } from './local-model-error.js';

export type ModelTask = 'embed' | 'rerank';
export type Pooling = 'mean' | 'cls' | 'max';

export interface ModelFolder {
  id: string;
  dir: string;
  /** Path inside `dir` of the ONNX graph that runs. */
  modelFile: string;
  /** Most tokens one input may have, special tokens included. */
  maxTokens: number;
  pooling: Pooling;
  /** Where `pooling` was read from: the file, or the default for a model that declares none. */
  poolingFrom: string;
  /** modules.json lists a Normalize module. Vectors are unit length for the cosine scan either way. */
  declaresNormalize: boolean;
  queryPrefix: string;
  passagePrefix: string;
}

/** The files every model needs; `onnx/model.onnx` is the full-precision graph Transformers.js loads by default on CPU. */
export const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'] as const;
/** Declarations read where the model has them. */
export const OPTIONAL_FILES = ['1_Pooling/config.json', 'modules.json', 'config_sentence_transformers.json', 'special_tokens_map.json'] as const;

/** Model ids are `owner/name` as on the Hugging Face hub: no `..`, no absolute path, nothing that leaves MODELS_DIR. */
const MODEL_ID = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

export function isModelId(id: string): boolean {
  return MODEL_ID.test(id) && !id.split('/').some((part) => part === '.' || part === '..' || part.includes('..'));
}

/** The folder of model `id` in `modelsDir`. Throws `model_id` for an id that is not `owner/name`. */
export function modelDir(modelsDir: string, id: string): string {
  if (!isModelId(id)) throw new LocalModelError('model_id', `model id ${JSON.stringify(id)} is not of the form owner/name (letters, digits, "-", "_", ".")`);
  const root = resolve(modelsDir);
  const dir = resolve(root, ...id.split('/'));
  if (!dir.startsWith(root + sep)) throw new LocalModelError('model_id', `model id ${JSON.stringify(id)} leaves MODELS_DIR`);
  return dir;
}

/** The required files missing from model `id`'s folder (all of them when there is no folder). */
export function missingFiles(modelsDir: string, id: string): string[] {
  const dir = modelDir(modelsDir, id);
  return REQUIRED_FILES.filter((file) => !existsSync(join(dir, file)));
}

function readJson(dir: string, file: string, id: string): Record<string, unknown> | undefined {
  const path = join(dir, file);
  if (!existsSync(path)) return undefined;
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (value === null || typeof value !== 'object') throw new Error('not a JSON object or array');
    return value as Record<string, unknown>;
  } catch (error) {
    throw new LocalModelError('model_damaged', `model ${id}: ${file} cannot be read (${error instanceof Error ? error.message : String(error)}); fetch the model again (npm run models -- fetch ${id})`);
  }
}

/** The rules model `id` declares in its folder. Throws `model_missing` or `model_damaged`. */
export function readModelFolder(modelsDir: string, id: string, task: ModelTask): ModelFolder {
  const dir = modelDir(modelsDir, id);
  const missing = missingFiles(modelsDir, id);
  if (missing.length > 0) {
    throw new LocalModelError('model_missing', `model ${id} is not in MODELS_DIR (${resolve(modelsDir)}): ${missing.join(', ')} missing`);
  }
  const config = readJson(dir, 'config.json', id) ?? {};
  const tokenizerConfig = readJson(dir, 'tokenizer_config.json', id) ?? {};
  readJson(dir, 'tokenizer.json', id);
  const declaredMax = [tokenizerConfig.model_max_length, config.max_position_embeddings].find(
    (n): n is number => typeof n === 'number' && Number.isInteger(n) && n > 2 && n <= 1_000_000,
  );
  const maxTokens = declaredMax ?? 512;
  const pooling = readPooling(readJson(dir, '1_Pooling/config.json', id));
  const modules = readJson(dir, 'modules.json', id);
  const declaresNormalize = Array.isArray(modules) && modules.some((m: { type?: unknown }) => typeof m?.type === 'string' && m.type.endsWith('.Normalize'));
  const prompts = (readJson(dir, 'config_sentence_transformers.json', id)?.prompts ?? {}) as Record<string, unknown>;
  const prompt = (...names: string[]) => {
    for (const name of names) if (typeof prompts[name] === 'string') return prompts[name];
    return '';
  };
  return {
    id,
    dir,
    modelFile: 'onnx/model.onnx',
    maxTokens,
    pooling: pooling?.pooling ?? (task === 'rerank' ? 'cls' : 'mean'),
    poolingFrom: pooling === undefined ? 'the default (no 1_Pooling/config.json)' : '1_Pooling/config.json',
    declaresNormalize,
    queryPrefix: prompt('query', 'search_query'),
    passagePrefix: prompt('document', 'passage', 'search_document'),
  };
}

function readPooling(file: Record<string, unknown> | undefined): { pooling: Pooling } | undefined {
  if (file === undefined) return undefined;
  if (file.pooling_mode_cls_token === true) return { pooling: 'cls' };
  if (file.pooling_mode_mean_tokens === true) return { pooling: 'mean' };
  if (file.pooling_mode_max_tokens === true) return { pooling: 'max' };
  return undefined;
}
