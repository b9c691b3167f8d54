// The tokens of one-time links (invites, password resets): 256 random bits, base64url. The
// database keeps only their SHA-256, so a stolen table opens no link.
import { createHash, randomBytes } from "node:crypto";

/** What a link's token looks like: anything else is no token, and is not looked up. */
export const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const newLinkToken = () => randomBytes(32).toString("base64url");

export const hashLinkToken = (token: string) => createHash("sha256").update(token).digest("hex");
