# One image for every app; APP picks which one runs (gateway, platform, customers, accounts,
# payments, webhooks, cards, agents). Three stages: `build` compiles TypeScript with every
# dependency, `deps` installs production dependencies only, and the final stage carries just those
# and the compiled output (no TypeScript, swc, nx, jest or second Node binary), running as `node`.
# `npm run image:check` performs the same steps without Docker and runs in `npm run test:all`.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json tsconfig.build.json .swcrc ./
COPY libs ./libs
COPY apps ./apps
COPY scripts ./scripts
# The OpenAPI document the gateway serves at /docs (written by npm run openapi, committed); build.ts copies it into dist.
COPY openapi ./openapi
RUN node -r @swc-node/register scripts/build.ts dist

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
# The blob directory exists, owned by node, so a named volume mounted there (compose's `blobs`)
# starts out writable by the apps.
RUN mkdir -p /var/lib/corridor/blobs && chown -R node:node /var/lib/corridor
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
USER node

ARG APP=gateway
ENV APP=${APP}
EXPOSE 8080 9090

# Ready as the orchestrators see it: the gateway's PORT, a service's HEALTH_PORT (9090 in containers).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const p = process.env.APP === 'gateway' ? (process.env.PORT || 8080) : (process.env.HEALTH_PORT || 9090); fetch('http://127.0.0.1:' + p + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# exec replaces the shell so SIGTERM reaches node and Nest's shutdown hooks drain NATS and pools.
CMD ["sh", "-c", "exec node --enable-source-maps dist/apps/$APP/src/main.js"]
