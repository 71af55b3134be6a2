// A path with its symbolic links resolved, for the configuration's rules (src/config/ reads nothing
// from the machine itself). A path that does not exist yet is resolved as far as it exists: the
// nearest existing folder's real path, then the rest as written.
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export function realPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(realPath(parent), basename(absolute));
  }
}
