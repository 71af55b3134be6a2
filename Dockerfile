# corpus-mcp container image.
#
#   docker build -t corpus-mcp .
#   docker run -p 8080:8080 -e AUTH_TOKENS=<token> -e PUBLIC_URL=https://docs.example.com corpus-mcp
#
# Run it locked down: the server writes nothing but its logs (stdout), needs no capabilities and no
# privilege change:
#   docker run --read-only --cap-drop ALL --security-opt no-new-privileges --tmpfs /tmp ... corpus-mcp
# (give INDEX_FILE or a sign-in store a mounted volume if you use them).
#
# Base image: Node 24, the active LTS (Node 20 reached end of life in April 2026). It is named by tag,
# not digest: a digest could not be verified where this file is maintained (no registry access), and
# an unverified one is worse than none. Pin it in your build pipeline, where you can check it:
#   docker buildx imagetools inspect node:24-bookworm-slim   →   FROM node:24-bookworm-slim@sha256:<digest>
#
# The server binds HOST=0.0.0.0 here, and a server reachable beyond loopback refuses to start without
# auth: set AUTH_TOKENS (or AUTH_TOKENS_FILE, or OAUTH_ISSUER and friends), or set
# ALLOW_UNAUTHENTICATED=true for a deliberately public documentation server.
#
# Your own documents: the bundled corpus sits at /app/corpus. Mount a folder over it
#   docker run ... -v "$PWD/docs:/app/corpus:ro" corpus-mcp
# or build a derived image (COPY merges into an existing folder, so use a fresh path):
#   FROM corpus-mcp
#   COPY docs /srv/docs
#   ENV CORPUS_DIR=/srv/docs
#
# Meaning out of the box: bake local models in (fetched at build time, never at boot), with the model
# runtime for the image's own platform only. Without the argument the image is keyword-only and holds
# no model runtime at all:
#   docker build --build-arg LOCAL_MODELS="Xenova/bge-small-en-v1.5 Xenova/ms-marco-MiniLM-L-6-v2" -t corpus-mcp .
#   docker run ... -e EMBEDDINGS_PROVIDER=local -e RERANK_PROVIDER=local corpus-mcp

# ---- build: compile TypeScript with the dev dependencies ----
FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 (the sign-in store) is a native addon: npm fetches a prebuilt binary or compiles it.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
# The server card takes the server's name, title and description from the MCP Registry entry.
COPY server.json ./
COPY scripts/build.mjs scripts/build-view.mjs ./scripts/
COPY src ./src
RUN npm run build
# Bake the index of the bundled corpus, so a deploy boots from it instead of building (INDEX_FILE).
# Built from the compiled code at the same path as in the runtime stage, so its engine version matches.
COPY corpus ./corpus
# The index is written owner-only (0600); the runtime stage's node user reads it through its group.
RUN node dist/src/index-cli.js --out /app/index.snapshot && chmod 0640 /app/index.snapshot
# Hugging Face model ids, space-separated, fetched into /app/models; empty: none, and no model runtime.
ARG LOCAL_MODELS=""
RUN mkdir -p /app/models && if [ -n "$LOCAL_MODELS" ]; then MODELS_DIR=/app/models node dist/src/models-cli.js fetch $LOCAL_MODELS; fi

# ---- runtime: production dependencies and the compiled output only ----
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
# git for the git source (CORPUS_GIT_URL): the real binary fetches; openssh-client for ssh remotes.
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates openssh-client && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
ARG LOCAL_MODELS=""
# The model runtime is an optional dependency: installed only when models are baked in.
RUN npm ci --omit=dev --ignore-scripts $([ -n "$LOCAL_MODELS" ] || echo --omit=optional) && npm cache clean --force
# onnxruntime-node ships every platform's binaries (288 MB): keep this image's own (45 MB on linux/x64).
# Transformers.js carries its own copy of onnxruntime-web, so that package (141 MB) goes too.
RUN if [ -n "$LOCAL_MODELS" ]; then rm -rf node_modules/onnxruntime-web && find node_modules/onnxruntime-node/bin -mindepth 3 -maxdepth 3 -type d ! -path "*/linux/$(node -p process.arch)" -exec rm -rf {} +; fi
# --ignore-scripts leaves better-sqlite3 without its addon: take the one the build stage compiled.
COPY --from=build /app/node_modules/better-sqlite3/build/Release/better_sqlite3.node ./node_modules/better-sqlite3/build/Release/
COPY --from=build /app/dist ./dist
COPY corpus ./corpus
COPY --from=build --chown=root:node /app/index.snapshot ./index.snapshot
COPY --from=build /app/models ./models
# A corpus mounted over /app/corpus no longer matches the baked snapshot: the server then builds its
# index at boot (and cannot rewrite the root-owned file; point INDEX_FILE at a writable volume to keep one).
ENV HOST=0.0.0.0 \
    PORT=8080 \
    CORPUS_DIR=/app/corpus \
    AUTH_DATA_DIR=/data \
    INDEX_FILE=/app/index.snapshot \
    MODELS_DIR=/app/models \
    MODELS_DOWNLOAD=false
# The team sign-in store (LOGIN_PROVIDER): mount a volume here (docker run -v corpus-auth:/data) so
# sign-ins survive a new container; the folder belongs to the node user, and so does a fresh volume.
RUN mkdir -p /data && chown node:node /data
# The node image's unprivileged user; the app and corpus stay root-owned, hence read-only to it.
USER node
EXPOSE 8080
# Liveness with node itself (the slim image has no curl or wget). /healthz answers as soon as the
# process is up; readiness (/readyz) is for load balancers, see fly.toml.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# SIGTERM starts the graceful drain (DRAIN_TIMEOUT_MS, default 10 s); `docker stop -t 15` covers it.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
