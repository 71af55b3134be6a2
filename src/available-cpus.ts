// How many CPUs this process may keep busy. Node 20's `os.availableParallelism()` counts the CPUs it
// may be scheduled on but not a container's CPU quota (libuv learned that later), so a container
// limited to one CPU on a 64-core host would see 64: the quota is read here from the cgroup files.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** cgroup v2's `cpu.max` ("<quota> <period>" or "max <period>"), then cgroup v1's two files. */
const QUOTA_FILES = ['/sys/fs/cgroup/cpu.max', '/sys/fs/cgroup/cpu/cpu.cfs_quota_us'] as const;

/**
 * The whole CPUs a quota of `quota` microseconds per `period` allows, at least 1; undefined for no
 * quota ("max", or -1 in cgroup v1) or text that is not one.
 */
export function cpusOfQuota(quota: string, period: string): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return Math.max(1, Math.floor(q / p));
}

function quotaCpus(read: (path: string) => string): number | undefined {
  try {
    const [quota = '', period = ''] = read(QUOTA_FILES[0]).trim().split(/\s+/);
    return cpusOfQuota(quota, period);
  } catch {
    // No cgroup v2 file: try v1.
  }
  try {
    return cpusOfQuota(read(QUOTA_FILES[1]).trim(), read('/sys/fs/cgroup/cpu/cpu.cfs_period_us').trim());
  } catch {
    return undefined;
  }
}

/** The CPUs this process may use: the scheduler's count, lowered to the container's CPU quota if any. */
export function availableCpus(read: (path: string) => string = (path) => readFileSync(path, 'utf8')): number {
  const quota = quotaCpus(read);
  return Math.max(1, Math.min(availableParallelism(), quota ?? Infinity));
}
