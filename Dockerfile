# Node 24, the LTS line Apollo Server 5 recommends (Node 20 reached end-of-life in April 2026). The
# code still runs on Node 20.18+ (package.json engines); .ci/run runs the test suite on 20 and 24.
#
# Needs BuildKit (`RUN --mount`), and deliberately has no `# syntax=` line: that line makes BuildKit
# fetch its Dockerfile frontend from Docker Hub, so an offline build would fail even with a local
# base image. The frontend built into Docker 20.10 and later reads everything below.
# scripts/docker/build.sh builds it with the host's npm CA bundle (docs/deployment.md).

# 1. Build: full dependencies, codegen (checked against schema/), TypeScript.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The npm registry may sit behind a TLS proxy only the host trusts: the host's CA bundle comes as
# the build secret `npm_ca`, mounted for this one command and never written to a layer. Without
# the secret, npm uses Node's own CAs.
RUN --mount=type=secret,id=npm_ca --mount=type=cache,target=/root/.npm \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund
# What the build reads, one top-level entry a line: a new folder the build needs is one more COPY.
COPY tsconfig.json tsconfig.build.json codegen.yml ./
COPY schema ./schema
COPY src ./src
COPY contract ./contract
COPY emulator ./emulator
COPY scripts/buildExplorer.mjs ./scripts/buildExplorer.mjs
RUN npm run codegen:check && npm run build

# 2. Production dependencies only.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=npm_ca --mount=type=cache,target=/root/.npm \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --omit=dev --no-audit --no-fund

# 3. Runtime: no compiler, no dev dependencies, not root. The app files stay owned by root: the
# `node` user reads them and cannot rewrite its own code or dependencies.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    PORT=4001
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
# The server reads its SDL from schema/ at start-up.
COPY schema ./schema
COPY --from=build /app/dist ./dist
# Secrets come as files (Docker/Kubernetes secrets), never as plain variables in the image or its
# inspect output: set REPORTING_PASSWORD_FILE / REDIS_URL_FILE at run time (read once at start-up).
# The file must be readable by uid 1000 (mode 0444, or owned by 1000): docs/deployment.md.
USER node
EXPOSE 4001
# On SIGTERM, readiness turns 503 for SHUTDOWN_DELAY_SECONDS (5) before the listener closes, and the
# process exits at the latest 15 s later: run with `--stop-timeout 25` (compose: stop_grace_period).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4001) + '/health/ready').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--expose-gc", "dist/src/index.js"]
