// A small reader for the subset of Dockerfile syntax this project's Dockerfile uses: comments, line
// continuations, FROM … AS stages, ENV k=v pairs, and exec-form (JSON array) CMD and HEALTHCHECK.
// Used by the deploy test and scripts/check-deploy.ts to run exactly what the image would run.

export interface Instruction {
  keyword: string; // upper-case, e.g. 'RUN'
  args: string; // the rest of the line, continuations joined with a space
}

export interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

export interface Dockerfile {
  stages: Stage[];
  /** The last stage: what `docker run` starts. */
  runtime: Stage;
}

export function parseDockerfile(text: string): Dockerfile {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (pending === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    if (pending !== '' && line.trimStart().startsWith('#')) continue; // comments inside a continuation
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push((pending + line.trim()).trim());
    pending = '';
  }
  if (pending !== '') logical.push(pending.trim());

  const stages: Stage[] = [];
  for (const line of logical) {
    const match = /^(\S+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!;
    if (keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`Dockerfile: cannot read FROM ${args}`);
      stages.push({ image: from[1]!, name: from[2], instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile: ${keyword} before any FROM`);
    stage.instructions.push({ keyword, args });
  }
  const runtime = stages.at(-1);
  if (!runtime) throw new Error('Dockerfile: no FROM');
  return { stages, runtime };
}

/** All instructions of a stage with this keyword. */
export function instructions(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword.toUpperCase());
}

/** ENV of a stage as a map (`ENV K=V K2="V 2"` form; later values win). */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of instructions(stage, 'ENV')) {
    const pair = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g;
    let match: RegExpExecArray | null;
    let found = false;
    while ((match = pair.exec(args))) {
      const value = match[2]!;
      env[match[1]!] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
      found = true;
    }
    if (!found) throw new Error(`Dockerfile: ENV must use K=V form, got ENV ${args}`);
  }
  return env;
}

/** An exec-form command (`["node", "x.js"]`); shell form is refused, since it would swallow signals. */
export function execForm(args: string, what: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw new Error(`Dockerfile: ${what} must be exec form (a JSON array), got ${args}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === 'string')) {
    throw new Error(`Dockerfile: ${what} must be a non-empty JSON array of strings, got ${args}`);
  }
  return parsed as string[];
}

/** The runtime stage's CMD, exec form. */
export function cmdOf(stage: Stage): string[] {
  const cmd = instructions(stage, 'CMD').at(-1);
  if (!cmd) throw new Error('Dockerfile: the runtime stage has no CMD');
  return execForm(cmd.args, 'CMD');
}

/** The HEALTHCHECK's options and exec-form command. */
export function healthcheckOf(stage: Stage): { options: Record<string, string>; command: string[] } {
  const check = instructions(stage, 'HEALTHCHECK').at(-1);
  if (!check) throw new Error('Dockerfile: the runtime stage has no HEALTHCHECK');
  const match = /^((?:--[a-z-]+=\S+\s+)*)CMD\s+(.*)$/.exec(check.args);
  if (!match) throw new Error(`Dockerfile: cannot read HEALTHCHECK ${check.args}`);
  const options: Record<string, string> = {};
  for (const opt of match[1]!.trim().split(/\s+/).filter(Boolean)) {
    const [key, value] = opt.replace(/^--/, '').split('=');
    options[key!] = value!;
  }
  return { options, command: execForm(match[2]!, 'HEALTHCHECK CMD') };
}
