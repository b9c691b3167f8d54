// The workspace's credentials: stored once, never shown again (a hint of the last characters at
// most), rotated, deleted; a credential flows use shows them before it can be deleted.
import { useQuery } from "@tanstack/react-query";
import { client, describeError, read } from "../api";
import { IN_ORDER, useCursorPages } from "../ui/cursor-pages";
import { ErrorMessage } from "../ui/status-badge";
import { CredentialRow } from "./credential-row";
import { NewCredential } from "./new-credential";

export function CredentialsPage() {
  const pages = useCursorPages({ labels: IN_ORDER });
  const credentials = useQuery({
    queryKey: ["credentials", "page", pages.cursor],
    queryFn: () => read(client.GET("/api/credentials", { params: { query: { limit: 50, cursor: pages.cursor } } })),
  });
  const items = credentials.data?.items ?? [];
  return (
    <div className="settings">
      <h1>Credentials</h1>
      <section className="card">
        <h2>Stored credentials</h2>
        <ErrorMessage error={credentials.error ? describeError(credentials.error) : null} />
        {items.length === 0 ? (
          <p className="empty">No credentials yet: store one below, then pick it in a node's Credential field.</p>
        ) : (
          <ul className="endpoints">
            {items.map((credential) => (
              <CredentialRow key={credential.id} credential={credential} />
            ))}
          </ul>
        )}
        {pages.pager(credentials.data?.next_cursor)}
      </section>
      <NewCredential />
    </div>
  );
}
