# One image for the API, the worker and the migration job (the command picks the role).
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
USER node
# 3000: the API. 9464 to 9466: operator metrics (API, worker, Temporal SDK) for a private Prometheus.
EXPOSE 3000 9464 9465 9466
CMD ["node", "--import", "tsx", "api/server.ts"]
