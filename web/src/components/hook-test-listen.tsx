// "Listen for a test event" of a hook trigger (POST /api/flows/{id}/hook/test-listen): a one-use
// test address, apart from the production hook, listens for five minutes; it is polled until it
// captured a request, which becomes the test input (the run input Test flow runs the draft on).
// The production hook keeps serving the published version meanwhile.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { apiUrl, client, describeError, read } from "../api";
import { ErrorMessage } from "../ui/status-badge";

/** How often a listening address is read again (it stops listening within five minutes). */
const POLL_MS = 1_000;

interface Listen {
  id: string;
  url: string;
  expiresAt: string;
}

export function HookTestListen({
  flowId,
  onCaptured,
}: {
  flowId: string;
  /** The captured request, {method, headers, query, body}: once per listen. */
  onCaptured: (input: Record<string, unknown>) => void;
}) {
  const [listen, setListen] = useState<Listen | null>(null);
  const open = useMutation({
    mutationFn: () => read(client.POST("/api/flows/{id}/hook/test-listen", { params: { path: { id: flowId } } })),
    onSuccess: (opened) => setListen({ id: opened.id, url: apiUrl(opened.test_path), expiresAt: opened.expires_at }),
  });
  const state = useQuery({
    queryKey: ["flow", flowId, "test-listen", listen?.id],
    enabled: listen !== null,
    queryFn: () =>
      read(
        client.GET("/api/flows/{id}/hook/test-listen/{listenId}", {
          params: { path: { id: flowId, listenId: listen!.id } },
        }),
      ),
    refetchInterval: (query) => (query.state.data && query.state.data.status !== "listening" ? false : POLL_MS),
  });
  // Each captured request is handed on once.
  const handed = useRef<string | null>(null);
  const captured = state.data?.status === "captured" ? state.data : null;
  useEffect(() => {
    if (!captured?.captured || handed.current === captured.id) return;
    handed.current = captured.id;
    onCaptured(captured.captured);
  }, [captured, onCaptured]);

  const status = listen ? (state.data?.status ?? "listening") : null;
  const failure = open.error ?? state.error;
  return (
    <section className="hook-test" aria-label="Test event">
      <button type="button" disabled={open.isPending || status === "listening"} onClick={() => open.mutate()}>
        {status === "listening" ? "Listening…" : "Listen for a test event"}
      </button>
      {listen && status === "listening" && (
        <p className="muted small" role="status">
          Send one request to <code data-test-url>{listen.url}</code> before{" "}
          {new Date(listen.expiresAt).toLocaleTimeString()}: it becomes the test input and starts no run.
        </p>
      )}
      {status === "captured" && (
        <p className="small" role="status">
          Test event captured: it is the input above, ready for Test flow.
        </p>
      )}
      {status === "expired" && (
        <p className="muted small" role="status">
          The test address expired without a request.
        </p>
      )}
      <ErrorMessage error={failure ? describeError(failure) : null} />
    </section>
  );
}
