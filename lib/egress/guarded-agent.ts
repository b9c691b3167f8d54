// The connection side of the egress guard: an undici Agent whose connector checks the address it
// actually connects to, after DNS resolution and on the open socket. This is what defeats DNS
// rebinding: whatever the resolver answers at connect time is what gets checked.
import type { LookupAddress } from "node:dns";
import type { LookupFunction, Socket } from "node:net";
import { Agent, buildConnector } from "undici";
import { addressRefusal, type EgressPolicy } from "./egress-policy.js";

/** A lookup for net.connect that refuses a host any of whose addresses is refused. */
function guardedLookup({ allowlist, resolve }: EgressPolicy): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname)
      .then((addresses) => {
        if (!allowlist.allowsHost(hostname)) {
          for (const { address } of addresses) {
            const error = addressRefusal(allowlist, hostname, address);
            if (error) throw error;
          }
        }
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
        const usable = addresses.filter((a) => family === undefined || a.family === family);
        if (usable.length === 0) throw Object.assign(new Error(`No address for ${hostname}`), { code: "ENOTFOUND" });
        if (lookupOptions.all) (callback as (e: null, a: LookupAddress[]) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, "", 0));
  };
}

export function guardedAgent(policy: EgressPolicy, timeoutMs: number): Agent {
  const connect = buildConnector({ lookup: guardedLookup(policy), timeout: timeoutMs });
  return new Agent({
    connect(connectOptions, callback) {
      connect(connectOptions, (error, socket) => {
        if (error) return callback(error, null);
        // The last word: the peer address of the open socket (covers IP literals, which skip lookup).
        const remote = (socket as Socket).remoteAddress ?? "";
        const host = connectOptions.hostname.replace(/^\[|\]$/g, "");
        const refused = policy.allowlist.allowsHost(host) ? undefined : addressRefusal(policy.allowlist, host, remote);
        if (refused) {
          socket!.destroy();
          return callback(refused, null);
        }
        callback(null, socket!);
      });
    },
  });
}
