# syntax=docker/dockerfile:1

# Node 24, the LTS line Apollo Server 5 recommends (Node 20 reached end-of-life in April 2026). The
# code still runs on Node 20.18+ (package.json engines); .ci/run runs the test suite on 20 and 24.
# 1. Build: full dependencies, codegen (checked against schema/), TypeScript.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json codegen.yml ./
COPY schema ./schema
COPY src ./src
COPY contract ./contract
COPY emulator ./emulator
COPY scripts ./scripts
RUN npm run codegen:check && npm run build

# 2. Production dependencies only.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# 3. Runtime: no compiler, no dev dependencies, not root.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    PORT=4001
WORKDIR /app
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --chown=node:node package.json ./
# The server reads its SDL from schema/ at start-up.
COPY --chown=node:node schema ./schema
# Secrets come as files (Docker/Kubernetes secrets), never as plain variables in the image or its
# inspect output, e.g. `docker run -v ./secrets:/run/secrets:ro -e REPORTING_PASSWORD_FILE=/run/secrets/reporting_password …`.
# Set REPORTING_PASSWORD_FILE / REDIS_URL_FILE at run time; their contents are read once at start-up.
COPY --from=build --chown=node:node /app/dist ./dist
USER node
EXPOSE 4001
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4001) + '/health/ready').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/index.js"]
