// Liveness and readiness. /healthz says the process is up and serving HTTP (a supervisor restarts it
// otherwise); /readyz says it can answer tool calls, i.e. the index is built (a load balancer sends
// traffic only then).
import { Hono } from 'hono';
import { skippedCounts } from '../../corpus/document.js';
import { progressUnit } from '../../index-service/build-progress.js';
import type { BuildProgress } from '../../index-service/build-progress.js';
import type { IndexStatus } from '../../index-service/index-service.js';
import type { IndexHolder } from '../../mcp/index-holder.js';
import type { GitSourceStatus } from '../../git-source/git-source.js';
import type { SemanticService } from '../../semantic/semantic-service.js';
import { SERVER_PATHS } from '../../server-paths.js';

export interface HealthRoutesOptions {
  holder: IndexHolder;
  /** Extra reasons to report not ready, e.g. shutting down. Return a reason string, or undefined when fine. */
  notReadyReason?: () => string | undefined;
  /**
   * Embeddings state. While the endpoint is down the server still answers every tool (by keywords),
   * so /readyz stays 200 with status "degraded" and the reason, for an operator rather than a load balancer.
   */
  semantic?: SemanticService;
  /** Generation and last reload of the index; shown when given. */
  indexStatus?: (() => IndexStatus) | undefined;
  /** The git source's commit, fetch and error; shown when given. A failed fetch keeps serving (200, "degraded"). */
  gitStatus?: () => GitSourceStatus;
}

export function healthRoutes({ holder, notReadyReason, semantic, indexStatus, gitStatus }: HealthRoutesOptions): Hono {
  const routes = new Hono();
  routes.get(SERVER_PATHS.healthz, (c) => c.json({ status: 'ok' }));
  routes.get(SERVER_PATHS.readyz, (c) => {
    const extra = notReadyReason?.();
    if (extra !== undefined) return c.json({ status: 'unavailable', reason: extra }, 503);
    if (holder.failure) return c.json({ status: 'failed', reason: 'the index failed to build' }, 503);
    const served = holder.current;
    const git = gitStatus?.();
    if (!served) {
      if (git !== undefined && git.error !== undefined) {
        return c.json({ status: 'starting', reason: `the git repository could not be served yet: ${git.error.summary}; retrying`, git: gitFields(git) }, 503);
      }
      return c.json({ status: 'starting', reason: 'the index is being built', ...buildField(indexStatus?.().progress), ...(git ? { git: gitFields(git) } : {}) }, 503);
    }
    const { documents, chunks } = served.index.stats;
    // A failed reload leaves the previous index serving: still ready (200), with the failure shown.
    const { skipped, notDocuments } = skippedCounts(served.skipped);
    const body = { status: 'ready', documents, chunks, skipped, not_documents: notDocuments, generation: served.generation, ...reloadFields(indexStatus?.()), ...(git ? { git: gitFields(git) } : {}) };
    if (git?.error !== undefined) {
      return c.json({ ...body, status: 'degraded', reason: `git source: ${git.error.summary}; the last good commit keeps serving` });
    }
    const state = semantic?.state;
    if (state === undefined || state.state === 'off') return c.json(body);
    if (state.state === 'degraded') {
      return c.json({ ...body, status: 'degraded', reason: `semantic search unavailable, serving keyword search only: ${state.reason}`, semantic: state });
    }
    return c.json({ ...body, semantic: state });
  });
  return routes;
}

function reloadFields(status: IndexStatus | undefined): Record<string, unknown> {
  if (status === undefined) return {};
  const last = status.last;
  return {
    reloading: status.reloading,
    // While a reload runs the previous index serves (200); how far the next one has got.
    ...buildField(status.progress),
    ...(last === undefined
      ? {}
      : {
          last_reload: {
            trigger: last.trigger,
            outcome: last.outcome,
            at: new Date(last.finishedAt).toISOString(),
            ...(last.origin ? { origin: last.origin } : {}),
            // The code only: the full reason can name server paths, and this route is open. The log has it.
            ...(last.outcome === 'failed' ? { error: last.code ?? 'build_failed' } : {}),
          },
        }),
  };
}

function gitFields(git: GitSourceStatus): Record<string, unknown> {
  return {
    commit: git.commit ?? null,
    fetched_at: git.fetchedAt === undefined ? null : new Date(git.fetchedAt).toISOString(),
    ...(git.fetchedCommit !== undefined && git.fetchedCommit !== git.commit ? { fetched_commit: git.fetchedCommit } : {}),
    last_error: git.error === undefined ? null : { code: git.error.code, message: git.error.summary, at: new Date(git.error.at).toISOString(), failures: git.failures },
  };
}

/** `build: { phase, done, total, unit }` while a build runs: `unit` names what done/total count, when they count anything. */
function buildField(progress: BuildProgress | undefined): { build?: Record<string, unknown> } {
  if (progress === undefined) return {};
  const { phase, done, total, read, chunks } = progress;
  const unit = progressUnit(phase);
  return { build: { phase, done, total, ...(unit ? { unit } : {}), ...(read !== undefined ? { read } : {}), ...(chunks !== undefined ? { chunks } : {}) } };
}
