// Who saved a flow's versions, in words: `created_by` holds a user's or an API token's id, and the
// versions list answers the name a reader knows them by.
import type { PrismaClient } from "../../lib/db.js";

/**
 * The display names of `ids`: a user's name (their e-mail when the name is empty), an API token's
 * name as `token "<name>"` (tokens of this workspace only); ids no longer found are left out.
 */
export async function versionAuthors(
  prisma: PrismaClient,
  workspaceId: string,
  ids: Array<string | null>,
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const [users, tokens] = await Promise.all([
    prisma.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true, email: true } }),
    prisma.apiToken.findMany({ where: { id: { in: wanted }, workspaceId }, select: { id: true, name: true } }),
  ]);
  return new Map([
    ...users.map((user): [string, string] => [user.id, user.name.trim() || user.email]),
    ...tokens.map((token): [string, string] => [token.id, `token "${token.name}"`]),
  ]);
}
