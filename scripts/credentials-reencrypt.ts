// npm run credentials:reencrypt: seals every credential stored under an older key (or, before
// credentials, under AI_KEYS_SECRET) again under the first key of SVC_ENCRYPTION_KEY, and the run
// payloads stored in PostgreSQL under an older key or plain (README: "Data at rest"). Run it after
// putting a new key first; the old one can be dropped from SVC_ENCRYPTION_KEY once nothing remains
// under it. Uses SVC_ENCRYPTION_KEY, else npm start's key in the data directory.
import { systemClock } from "../lib/clock.js";
import { ConfigError, credentialKeysConfigSchema, loadDotEnv, parseConfig } from "../lib/config.js";
import { createPrismaClient } from "../lib/db.js";
import { createCredentialsService } from "../core/credentials/credentials.service.js";
import { reencryptRunPayloads } from "../core/runs/records/payload-reencrypt.js";
import { createJsonSeal } from "../lib/crypto/sealed-json.js";
import { localEncryptionKey } from "./infra/encryption-key.js";
import { withServiceDatabase } from "./infra/local-service.js";

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

loadDotEnv();
const key = localEncryptionKey(process.env, { create: false });
if (!key) fail("No key to seal with: set SVC_ENCRYPTION_KEY (README: Credentials)");
let config;
try {
  config = parseConfig({ ...process.env, SVC_ENCRYPTION_KEY: key.value }, credentialKeysConfigSchema);
} catch (error) {
  fail(error instanceof ConfigError ? error.message : String(error));
}

const result = await withServiceDatabase(async (databaseUrl) => {
  const prisma = createPrismaClient(databaseUrl, { maxConnections: 2 });
  try {
    const credentials = await createCredentialsService({ prisma, clock: systemClock, config }).reencryptAll();
    const payloads = await reencryptRunPayloads(prisma, createJsonSeal(config.SVC_ENCRYPTION_KEY));
    return { ...credentials, payloads };
  } finally {
    await prisma.$disconnect();
  }
});
process.stdout.write(
  `re-encrypted ${result.reencrypted} credential(s) under key "${result.currentKeyId}"; ${result.remaining} remain under other keys\n`,
);
for (const { id, reason } of result.unreadable) process.stdout.write(`  ${id}: ${reason}\n`);
process.stdout.write(`sealed ${result.payloads.resealed} run payload row(s) under key "${result.currentKeyId}"\n`);
for (const { table, key, reason } of result.payloads.unreadable) process.stdout.write(`  ${table} ${key}: ${reason}\n`);
if (result.payloads.unreadable.length > 0) {
  fail(
    `${result.payloads.unreadable.length} run payload row(s) could not be opened: keep their key in SVC_ENCRYPTION_KEY and run this again`,
  );
}
if (result.unreadable.length > 0) {
  fail(
    `${result.unreadable.length} credential(s) could not be opened: keep their key in SVC_ENCRYPTION_KEY (or AI_KEYS_SECRET) and run this again`,
  );
}
