// Summaries of V8 CPU profiles (the format of `node --cpu-prof` and the inspector's Profiler.stop):
// self time by frame and by origin (our src/ folders, each dependency, Node internals, GC), as
// Markdown tables, so a profile can be read in a benchmark report rather than in a viewer.
import { table } from './scifact.js';

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code comes from: "src/mcp", "@modelcontextprotocol/sdk", "node internals", "(garbage collector)". */
export function originOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dependency) return dependency[1] as string;
  const own = /\/(src|scripts)\/([^/]+)\//.exec(url);
  if (own) return `corpus-mcp ${own[1]}/${own[2]}`;
  if (/\/(src|scripts)\/[^/]+\.ts$/.test(url)) return 'corpus-mcp src';
  if (url.startsWith('node:')) return 'node internals';
  return url.replace(/^.*\//, '');
}

/** Self time in milliseconds per frame and per origin, over one or more profiles, idle time excluded. */
export function selfTimes(profiles: readonly CpuProfile[]): { frames: Map<string, number>; origins: Map<string, number>; totalMs: number } {
  const frames = new Map<string, number>();
  const origins = new Map<string, number>();
  let totalMs = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    for (let i = 0; i < profile.samples.length; i += 1) {
      const node = byId.get(profile.samples[i] as number);
      const deltaMs = (profile.timeDeltas[i] ?? 0) / 1000;
      if (!node || node.callFrame.functionName === '(idle)' || deltaMs <= 0) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      const origin = originOf(url, functionName);
      const frame = `${functionName || '(anonymous)'} · ${origin}${url ? `:${lineNumber + 1}` : ''}`;
      frames.set(frame, (frames.get(frame) ?? 0) + deltaMs);
      origins.set(origin, (origins.get(origin) ?? 0) + deltaMs);
      totalMs += deltaMs;
    }
  }
  return { frames, origins, totalMs };
}

/** Two Markdown tables: the top frames by self time, and self time grouped by origin. */
export function summariseProfile(profiles: readonly CpuProfile[], top = 15): string {
  const { frames, origins, totalMs } = selfTimes(profiles);
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  const pct = (v: number) => `${((v / Math.max(totalMs, 1e-9)) * 100).toFixed(1)}%`;
  const frameTable = table(
    ['frame (self time)', 'ms', 'share'],
    sorted(frames).slice(0, top).map(([name, v]) => [name, v.toFixed(0), pct(v)]),
  );
  const originTable = table(
    ['origin', 'ms', 'share'],
    sorted(origins).map(([name, v]) => [name, v.toFixed(0), pct(v)]),
  );
  return `busy CPU sampled: ${totalMs.toFixed(0)} ms\n\n${frameTable}\n\n${originTable}`;
}
