// A file's identity (device and inode), which no path trick changes: a symbolic link, a hard link or a
// bind mount names the same identity under another path. The corpus walk skips files by identity
// (AUTH_TOKENS_FILE: it must never be indexed, whatever path leads to it). Loads nothing but Node's own.
import { statSync } from 'node:fs';

export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The identities of the files at `paths` (links followed); a path unset or that cannot be read is left out. */
export function fileIdentities(paths: ReadonlyArray<string | undefined>): FileIdentity[] {
  const identities: FileIdentity[] = [];
  for (const path of paths) {
    if (path === undefined || path === '') continue;
    try {
      const { dev, ino } = statSync(path);
      identities.push({ dev, ino });
    } catch {
      // Unreadable: the configuration's own check reports it (a tokens file that cannot be read stops the boot).
    }
  }
  return identities;
}

export function isOneOf(identity: FileIdentity, identities: readonly FileIdentity[]): boolean {
  return identities.some((other) => other.dev === identity.dev && other.ino === identity.ino);
}

export function sameIdentities(a: readonly FileIdentity[] = [], b: readonly FileIdentity[] = []): boolean {
  return a.length === b.length && a.every((identity, k) => b[k]?.dev === identity.dev && b[k]?.ino === identity.ino);
}
