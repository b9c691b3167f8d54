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
EXPOSE 3000
CMD ["node", "--import", "tsx", "api/server.ts"]
