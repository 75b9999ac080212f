# One image for every app; APP picks which one runs (gateway, platform, customers, accounts, payments, webhooks, cards, agents).
# The apps run from TypeScript through @swc-node/register, exactly as in development, so the image
# needs no build step and a stack trace points at the source line.
FROM node:24-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
# The blob directory exists, owned by node, so a named volume mounted there (compose's `blobs`)
# starts out writable by the apps, which run as node.
RUN chown node:node /app && mkdir -p /var/lib/corridor/blobs && chown -R node:node /var/lib/corridor
USER node

# Dependencies first, so a source change does not reinstall them. npm install rather than npm ci:
# the lockfile lacks other platforms' optional builds, which makes npm ci refuse it.
COPY --chown=node:node package.json package-lock.json ./
RUN npm install --no-audit --no-fund --include=dev && npm cache clean --force

COPY --chown=node:node tsconfig.base.json tsconfig.json .swcrc ./
COPY --chown=node:node libs ./libs
COPY --chown=node:node apps ./apps
COPY --chown=node:node scripts ./scripts
# The OpenAPI document /docs serves (written by npm run openapi, committed).
COPY --chown=node:node openapi ./openapi

ARG APP=gateway
ENV APP=${APP}
EXPOSE 8080 9090

# exec replaces the shell so SIGTERM reaches node and Nest's shutdown hooks drain NATS and pools.
CMD ["sh", "-c", "exec node -r @swc-node/register apps/$APP/src/main.ts"]
