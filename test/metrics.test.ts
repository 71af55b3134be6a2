import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createMetrics, methodLabel } from '../src/http/metrics.js';
import { httpMetrics } from '../src/http/middleware/metrics.js';
import { metricsRoute } from '../src/http/routes/metrics.js';
import type { BuildProgress } from '../src/index-service/build-progress.js';
import { parseExposition, sampleValue, samplesNamed } from './metrics-exposition.js';

const scrape = async (metrics: ReturnType<typeof createMetrics>) => parseExposition((await metrics.render()).body);

describe('createMetrics', () => {
  it('gives each app its own registry, so two apps in one process never share counts', async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.recordSessionCreated();
    a.recordSessionCreated();
    expect(sampleValue(await scrape(a), 'corpus_mcp_sessions_created_total')).toBe(2);
    expect(sampleValue(await scrape(b), 'corpus_mcp_sessions_created_total')).toBe(0);
  });

  it('registers process and runtime metrics on the app registry', async () => {
    const samples = await scrape(createMetrics());
    expect(sampleValue(samples, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0);
    expect(samplesNamed(samples, 'nodejs_heap_size_total_bytes')).toHaveLength(1);
  });

  it('exposes the boot time in seconds', async () => {
    const samples = await scrape(createMetrics({ defaultMetrics: false, bootTimeMs: 1_700_000_000_500 }));
    expect(sampleValue(samples, 'corpus_mcp_boot_timestamp_seconds')).toBe(1_700_000_000.5);
  });

  describe('recordToolCall', () => {
    it('counts calls and observes latency by tool, outcome and era', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      metrics.knowTools(['search_documents', 'get_chunk']);
      metrics.recordToolCall({ tool: 'get_chunk', outcome: 'ok', era: 'legacy', durationSeconds: 0.002 });
      metrics.recordToolCall({ tool: 'get_chunk', outcome: 'tool_error', era: 'legacy', durationSeconds: 0.001 });
      metrics.recordToolCall({ tool: 'get_chunk', outcome: 'ok', era: 'legacy', durationSeconds: 0.003 });
      const samples = await scrape(metrics);
      expect(sampleValue(samples, 'corpus_mcp_tool_calls_total', { tool: 'get_chunk', outcome: 'ok', era: 'legacy' })).toBe(2);
      expect(sampleValue(samples, 'corpus_mcp_tool_calls_total', { tool: 'get_chunk', outcome: 'tool_error', era: 'legacy' })).toBe(1);
      expect(sampleValue(samples, 'corpus_mcp_tool_call_duration_seconds_count', { tool: 'get_chunk', outcome: 'ok', era: 'legacy' })).toBe(2);
      expect(sampleValue(samples, 'corpus_mcp_tool_call_duration_seconds_sum', { tool: 'get_chunk', outcome: 'ok', era: 'legacy' })).toBeCloseTo(0.005);
    });

    it('labels a tool name outside the known list as unknown', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      metrics.knowTools(['search_documents', 'get_chunk']);
      metrics.recordToolCall({ tool: 'drop_tables; --', outcome: 'protocol_error', era: 'legacy', durationSeconds: 0 });
      const samples = await scrape(metrics);
      expect(sampleValue(samples, 'corpus_mcp_tool_calls_total', { tool: 'unknown', outcome: 'protocol_error', era: 'legacy' })).toBe(1);
      expect(samples.some((s) => Object.values(s.labels).includes('drop_tables; --'))).toBe(false);
    });

    it('observes the result count of searches into a histogram', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      metrics.recordToolCall({ tool: 'search_documents', outcome: 'ok', era: 'legacy', durationSeconds: 0.01, resultCount: 0 });
      metrics.recordToolCall({ tool: 'search_documents', outcome: 'ok', era: 'legacy', durationSeconds: 0.01, resultCount: 7 });
      const samples = await scrape(metrics);
      expect(sampleValue(samples, 'corpus_mcp_search_results_count')).toBe(2);
      expect(sampleValue(samples, 'corpus_mcp_search_results_sum')).toBe(7);
      expect(sampleValue(samples, 'corpus_mcp_search_results_bucket', { le: '0' })).toBe(1);
      expect(sampleValue(samples, 'corpus_mcp_search_results_bucket', { le: '5' })).toBe(1);
      expect(sampleValue(samples, 'corpus_mcp_search_results_bucket', { le: '10' })).toBe(2);
    });
  });

  describe('sessions', () => {
    it('tracks active sessions from created and ended events, and counts each end reason', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      for (let i = 0; i < 4; i++) metrics.recordSessionCreated();
      metrics.recordSessionEnded('evicted');
      metrics.recordSessionEnded('deleted');
      const samples = await scrape(metrics);
      expect(sampleValue(samples, 'corpus_mcp_sessions_active')).toBe(2);
      expect(sampleValue(samples, 'corpus_mcp_sessions_created_total')).toBe(4);
      expect(sampleValue(samples, 'corpus_mcp_sessions_ended_total', { reason: 'evicted' })).toBe(1);
      expect(sampleValue(samples, 'corpus_mcp_sessions_ended_total', { reason: 'deleted' })).toBe(1);
      expect(sampleValue(samples, 'corpus_mcp_sessions_ended_total', { reason: 'expired' })).toBe(0);
    });

    it('reads the active count from an observed source at scrape time when one is given', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      let size = 3;
      metrics.observeActiveSessions(() => size);
      expect(sampleValue(await scrape(metrics), 'corpus_mcp_sessions_active')).toBe(3);
      size = 1;
      expect(sampleValue(await scrape(metrics), 'corpus_mcp_sessions_active')).toBe(1);
    });
  });

  describe('recordAuthFailure', () => {
    it('counts known reasons and folds anything else into other', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      metrics.recordAuthFailure('invalid_token');
      metrics.recordAuthFailure('invalid_token');
      metrics.recordAuthFailure('Bearer abc.def.ghi');
      const samples = await scrape(metrics);
      expect(sampleValue(samples, 'corpus_mcp_auth_failures_total', { reason: 'invalid_token' })).toBe(2);
      expect(sampleValue(samples, 'corpus_mcp_auth_failures_total', { reason: 'other' })).toBe(1);
    });
  });

  describe('setIndexStats', () => {
    it('sets the index gauges and marks the index ready', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      expect(sampleValue(await scrape(metrics), 'corpus_mcp_index_ready')).toBe(0);
      metrics.setIndexStats({ documents: 8, chunks: 41, terms: 2300, buildSeconds: 0.25 });
      const samples = await scrape(metrics);
      expect(sampleValue(samples, 'corpus_mcp_index_documents')).toBe(8);
      expect(sampleValue(samples, 'corpus_mcp_index_chunks')).toBe(41);
      expect(sampleValue(samples, 'corpus_mcp_index_terms')).toBe(2300);
      expect(sampleValue(samples, 'corpus_mcp_index_build_seconds')).toBe(0.25);
      expect(sampleValue(samples, 'corpus_mcp_index_ready')).toBe(1);
    });
  });

  describe('observeIndexBuild', () => {
    it('exposes the share done of the build phase under way at scrape time, and no series once none runs', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      let progress: BuildProgress | undefined = { phase: 'index', done: 1, total: 4, chunks: 3 };
      metrics.observeIndexBuild(() => progress);
      expect(samplesNamed(await scrape(metrics), 'corpus_mcp_index_build_progress')).toEqual([{ name: 'corpus_mcp_index_build_progress', labels: { phase: 'index' }, value: 0.25 }]);
      progress = { phase: 'encode', done: 0, total: 0 };
      expect(samplesNamed(await scrape(metrics), 'corpus_mcp_index_build_progress')).toEqual([{ name: 'corpus_mcp_index_build_progress', labels: { phase: 'encode' }, value: 0 }]);
      progress = undefined;
      expect(samplesNamed(await scrape(metrics), 'corpus_mcp_index_build_progress')).toEqual([]);
    });
  });
});

describe('methodLabel', () => {
  it.each([
    ['get', 'GET'],
    ['POST', 'POST'],
    ['DELETE', 'DELETE'],
    ['PROPFIND', 'OTHER'],
    ['GET /admin', 'OTHER'],
  ])('maps %s to %s', (method, label) => {
    expect(methodLabel(method)).toBe(label);
  });
});

describe('httpMetrics', () => {
  const build = () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const app = new Hono();
    app.use('*', httpMetrics({ metrics }));
    app.get('/items/:id', (c) => c.json({ id: c.req.param('id') }));
    app.onError((_err, c) => c.text('internal error', 500));
    app.post('/fail', () => {
      throw new Error('boom');
    });
    app.get('/metrics', metricsRoute({ metrics }));
    return { app, metrics };
  };

  it('labels requests by the route pattern, never the raw path', async () => {
    const { app, metrics } = build();
    await app.request('/items/42');
    await app.request('/items/secret-name');
    const samples = await scrape(metrics);
    expect(sampleValue(samples, 'corpus_mcp_http_requests_total', { route: '/items/:id', method: 'GET', status: '200' })).toBe(2);
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes('42') || v.includes('secret')))).toBe(false);
  });

  it('labels requests no route matched as unmatched', async () => {
    const { app, metrics } = build();
    const res = await app.request('/nope/../etc/passwd');
    expect(res.status).toBe(404);
    const samples = await scrape(metrics);
    expect(sampleValue(samples, 'corpus_mcp_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
  });

  it('counts a handler that throws as a 500 on its route and times it', async () => {
    const { app, metrics } = build();
    const res = await app.request('/fail', { method: 'POST' });
    expect(res.status).toBe(500);
    const samples = await scrape(metrics);
    expect(sampleValue(samples, 'corpus_mcp_http_requests_total', { route: '/fail', method: 'POST', status: '500' })).toBe(1);
    expect(sampleValue(samples, 'corpus_mcp_http_request_duration_seconds_count', { route: '/fail', method: 'POST', status: '500' })).toBe(1);
  });

  it('folds unusual methods into OTHER', async () => {
    const { app, metrics } = build();
    await app.request('/items/1', { method: 'PROPFIND' });
    const samples = await scrape(metrics);
    expect(samplesNamed(samples, 'corpus_mcp_http_requests_total').map((s) => s.labels.method)).toEqual(['OTHER']);
  });
});

describe('metricsRoute', () => {
  it('serves the registry in Prometheus text format, including the scrape that is answering', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const app = new Hono();
    app.use('*', httpMetrics({ metrics }));
    app.get('/metrics', metricsRoute({ metrics }));
    await app.request('/metrics');
    const res = await app.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseExposition(await res.text());
    expect(sampleValue(samples, 'corpus_mcp_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBe(1);
  });
});
