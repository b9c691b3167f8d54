// The tokens of resume URLs (/api/waits/resume/{token}): 256 random bits, of which the database
// keeps only the SHA-256, as it does for sessions; a token in hand is the only authority to resume.
import { createHash, randomBytes } from "node:crypto";

const PREFIX = "wr_";
/** What a token looks like: anything else is no token, and is not looked up. */
export const RESUME_TOKEN = /^wr_[A-Za-z0-9_-]{43}$/;

export const newResumeToken = () => `${PREFIX}${randomBytes(32).toString("base64url")}`;

export const hashResumeToken = (token: string) => createHash("sha256").update(token).digest("hex");
