import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gitHookRoutes } from './git-hook.js';

const SECRET = 'hook-secret-0123456789abcdef';
const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

function hook() {
  const syncs: string[] = [];
  const app = gitHookRoutes({ secret: SECRET, sync: (trigger) => void syncs.push(trigger) });
  const post = (body: string, headers: Record<string, string> = {}) => app.request('/hooks/git', { method: 'POST', body, headers });
  return { syncs, post };
}

describe('gitHookRoutes', () => {
  describe('POST /hooks/git', () => {
    it('starts a fetch for a body signed under the secret, and answers 202', async () => {
      const { syncs, post } = hook();
      const response = await post('{"ref":"refs/heads/main"}', { 'x-hub-signature-256': sign('{"ref":"refs/heads/main"}') });
      expect(response.status).toBe(202);
      expect(syncs).toEqual(['webhook']);
    });

    it.each([
      ['no signature', {}],
      ['another secret', { 'x-hub-signature-256': sign('{}', 'another-secret') }],
      ['the signature of another body', { 'x-hub-signature-256': sign('{ }') }],
      ['a SHA-1 signature', { 'x-hub-signature-256': `sha1=${createHmac('sha1', SECRET).update('{}').digest('hex')}` }],
      ['a truncated signature', { 'x-hub-signature-256': sign('{}').slice(0, 40) }],
    ])('refuses %s with 401 and starts nothing', async (_, headers) => {
      const { syncs, post } = hook();
      const response = await post('{}', headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'invalid_signature' });
      expect(syncs).toEqual([]);
    });

    it('answers a replayed delivery id 200 without starting a fetch', async () => {
      const { syncs, post } = hook();
      const headers = { 'x-hub-signature-256': sign('{}'), 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' };
      expect((await post('{}', headers)).status).toBe(202);
      const replay = await post('{}', headers);
      expect(replay.status).toBe(200);
      expect(await replay.json()).toMatchObject({ accepted: false });
      expect((await post('{}', { ...headers, 'x-github-delivery': 'another-delivery' })).status).toBe(202);
      expect(syncs).toEqual(['webhook', 'webhook']);
    });

    it('answers a ping without a fetch', async () => {
      const { syncs, post } = hook();
      expect((await post('{}', { 'x-hub-signature-256': sign('{}'), 'x-github-event': 'ping' })).status).toBe(200);
      expect(syncs).toEqual([]);
    });
  });
});
