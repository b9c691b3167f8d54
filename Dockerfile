# One image for the API, the worker and the migration job (the command picks the role).

# Stage 1: the dashboard. Its libraries (Vite, React, …) are devDependencies; only web/dist leaves
# this stage. --ignore-scripts: building web/ needs neither the Prisma client nor native add-ons' setup.
FROM node:20-bookworm-slim AS dashboard
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY web ./web
RUN npm run web:build

# Stage 2: the runtime, production dependencies only, with the built dashboard. It never builds
# the dashboard again (Vite is not installed): the API serves web/dist as it is.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY prisma.config.ts ./
COPY lib ./lib
COPY scripts ./scripts
# postinstall generates the Prisma client from prisma/schema.prisma.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY . .
COPY --from=dashboard /app/web/dist ./web/dist
USER node
# 3000: the API and its dashboard. 9464 to 9466: operator metrics (API, worker, Temporal SDK) for a private Prometheus.
EXPOSE 3000 9464 9465 9466
CMD ["node", "--import", "tsx", "api/server.ts"]
