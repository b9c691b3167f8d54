// The tokens of hook URLs (/api/hooks/{token}): 192 random bits, the bearer capability of a flow's
// hook, stored with the flow (a new one ends the old URL at once).
import { randomBytes } from "node:crypto";

/** What a token looks like: anything else is no hook, and is not looked up. */
export const HOOK_TOKEN = /^hk_[A-Za-z0-9_-]{32}$/;

export const newHookToken = () => `hk_${randomBytes(24).toString("base64url")}`;
