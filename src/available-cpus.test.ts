import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { availableCpus, cpusOfQuota } from './available-cpus.js';

const files =
  (contents: Record<string, string>) =>
  (path: string): string => {
    const text = contents[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };

describe('availableCpus', () => {
  it('reads whole CPUs from a quota, at least one, and no quota from "max" or -1', () => {
    expect(cpusOfQuota('200000', '100000')).toBe(2);
    expect(cpusOfQuota('150000', '100000')).toBe(1);
    expect(cpusOfQuota('50000', '100000')).toBe(1);
    expect(cpusOfQuota('max', '100000')).toBeUndefined();
    expect(cpusOfQuota('-1', '100000')).toBeUndefined();
    expect(cpusOfQuota('100000', '0')).toBeUndefined();
  });

  it('lowers the scheduler count to a cgroup v2 or v1 quota, and keeps it without one', () => {
    const cpus = availableParallelism();
    expect(availableCpus(files({ '/sys/fs/cgroup/cpu.max': '100000 100000\n' }))).toBe(1);
    expect(availableCpus(files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '100000\n', '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n' }))).toBe(1);
    expect(availableCpus(files({ '/sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBe(cpus);
    expect(availableCpus(files({ '/sys/fs/cgroup/cpu.max': '6400000 100000\n' }))).toBe(cpus);
    expect(availableCpus(files({}))).toBe(cpus);
  });
});
