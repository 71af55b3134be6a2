// Runs the real `git` binary for the git source. The token reaches git only through the environment:
// a credential helper given as configuration in environment variables (GIT_CONFIG_COUNT/KEY/VALUE)
// reads it from CORPUS_GIT_TOKEN, so it is never in a process's arguments, a URL, a file or the
// working copy's .git/config. The user's and the system's git configuration are not read, so no
// configured helper stores the token and no prompt waits for a person.
import { execFile } from 'node:child_process';
import { CodedError } from '../coded-error.js';

export const GIT_ERROR_CODES = ['auth_failed', 'not_found', 'ref_not_found', 'unreachable', 'too_large', 'not_owned', 'timeout', 'failed'] as const;
export type GitErrorCode = (typeof GIT_ERROR_CODES)[number];

/** What /readyz says of each code: it is open, so it never quotes git (which may name paths). */
export const GIT_ERROR_SUMMARIES: Readonly<Record<GitErrorCode, string>> = {
  auth_failed: 'the remote refused the credentials; check CORPUS_GIT_TOKEN (or the SSH key)',
  not_found: 'no repository at CORPUS_GIT_URL',
  ref_not_found: 'CORPUS_GIT_REF is not on the remote',
  unreachable: 'the remote cannot be reached',
  too_large: 'the commit is over CORPUS_GIT_MAX_MB',
  not_owned: 'CORPUS_DIR holds files that are not a working copy the server made',
  timeout: 'git took too long',
  failed: 'git failed; the log says why',
};

/** A git command that failed; the message is git's own, the token removed, for the log. */
export class GitError extends CodedError<GitErrorCode> {}

export interface GitRunner {
  /** Runs `git <args>` in `cwd`, resolving with its stdout; rejects with a GitError. */
  (args: readonly string[], options?: { cwd?: string; timeoutMs?: number; binary?: boolean }): Promise<string>;
}

const HELPER = '!f() { test "$1" = get && printf \'username=%s\\npassword=%s\\n\' "${CORPUS_GIT_USER:-x-access-token}" "$CORPUS_GIT_TOKEN"; }; f';

/** `text` with `secret` and any URL's user information taken out. */
export function scrub(text: string, secret: string | undefined): string {
  let out = text.replace(/(\/\/)[^/@\s'"]*@/g, '$1');
  if (secret !== undefined && secret !== '') out = out.split(secret).join('[hidden]');
  return out;
}

/** The code for what git wrote on stderr. */
export function classify(stderr: string): GitErrorCode {
  if (/Authentication failed|could not read (Username|Password)|returned error: 40[13]|Permission denied \(publickey|HTTP Basic: Access denied/i.test(stderr)) return 'auth_failed';
  if (/couldn't find remote ref|Remote branch .* not found|no matching remote head/i.test(stderr)) return 'ref_not_found';
  if (/repository .* not found|does not appear to be a git repository|Repository not found|returned error: 404|No such file or directory/i.test(stderr)) return 'not_found';
  if (/Could not resolve host|Connection refused|Failed to connect|timed out|unable to access|Network is unreachable|Could not read from remote|early EOF|unexpected disconnect|Empty reply/i.test(stderr)) return 'unreachable';
  return 'failed';
}

/** A runner whose commands carry `token` (if any) through the environment, trusting `safeDirectory`. */
export function gitRunner({ token, safeDirectory, baseEnv }: { token: string | undefined; safeDirectory: string; baseEnv: NodeJS.ProcessEnv }): GitRunner {
  const config: Array<[string, string]> = [
    ['safe.directory', safeDirectory],
    ['core.symlinks', 'true'],
    ['credential.helper', ''],
    ...(token === undefined ? [] : ([['credential.helper', HELPER]] as Array<[string, string]>)),
  ];
  const env: NodeJS.ProcessEnv = {
    ...baseEnv,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_SSH_COMMAND: baseEnv.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
    LC_ALL: 'C',
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(config.flatMap(([key, value], i) => [[`GIT_CONFIG_KEY_${i}`, key], [`GIT_CONFIG_VALUE_${i}`, value]])),
  };
  if (token === undefined) delete env.CORPUS_GIT_TOKEN;
  else env.CORPUS_GIT_TOKEN = token;
  return (args, { cwd, timeoutMs = 300_000 } = {}) =>
    new Promise((resolve, reject) => {
      execFile('git', [...args], { cwd, env, timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (error, stdout, stderr) => {
        if (error === null) return resolve(stdout);
        const spawnCode = (error as NodeJS.ErrnoException).code;
        if (spawnCode === 'ENOENT' && stderr === '') return reject(new GitError('failed', 'the git binary was not found on PATH; install git'));
        const said = scrub(stderr.trim() || error.message, token);
        const code: GitErrorCode = error.killed ? 'timeout' : classify(said);
        reject(new GitError(code, `git ${args[0] ?? ''} failed: ${said.split('\n').slice(-3).join(' ')}`));
      });
    });
}
