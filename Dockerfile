# One image for the API, the worker and the migration job (the command picks the role). It runs the
# JavaScript `npm run build` compiles (dist/), with its workflow bundle: no TypeScript at run time.

# Stage 1: the build. Every dependency (tsc, Vite and React are devDependencies); only dist/ and
# web/dist leave this stage. postinstall generates the Prisma client, which tsc compiles into dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY prisma.config.ts ./
COPY lib ./lib
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run web:build && npm run build

# Stage 2: the runtime, production dependencies only, with the compiled service and the built
# dashboard. (postinstall generates the Prisma client again from the schema; the Prisma CLI of the
# migration job reads prisma/ and prisma.config.ts.)
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0
COPY package.json package-lock.json ./
COPY prisma ./prisma
COPY prisma.config.ts ./
COPY lib ./lib
COPY scripts ./scripts
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
USER node
# 3000: the API and its dashboard. 9464 to 9466: operator metrics (API, worker, Temporal SDK) for a private Prometheus.
EXPOSE 3000 9464 9465 9466
CMD ["node", "dist/api/server.js"]
