// An agent run's model text as it is written (GET /api/agent/runs/{id}/events), shown until the
// step that holds it is recorded (the page's poll brings it). Any stream error closes it for
// good: the page shows the steps as they are recorded, as before.
import { useEffect, useState } from "react";
import { apiBase, apiUrl } from "../api";

/** The text of each model call being written, by its step number. */
function useAgentText(id: string, running: boolean): Map<number, string> {
  const [texts, setTexts] = useState(() => new Map<number, string>());
  useEffect(() => {
    if (!running || typeof EventSource === "undefined") return;
    const source = new EventSource(apiUrl(`/api/agent/runs/${id}/events`), { withCredentials: apiBase() !== "" });
    source.addEventListener("text", (event) => {
      const piece = JSON.parse((event as MessageEvent<string>).data) as { number: number; text: string };
      setTexts((before) => new Map(before).set(piece.number, (before.get(piece.number) ?? "") + piece.text));
    });
    // After the run's end: closed here, or the browser would open it again.
    source.addEventListener("end", () => source.close());
    source.onerror = () => source.close();
    return () => source.close();
  }, [id, running]);
  return texts;
}

/** What the model is writing now: the latest call's text whose step is not recorded yet. */
export function AgentLiveText({ id, running, recorded }: { id: string; running: boolean; recorded: number[] }) {
  const texts = useAgentText(id, running);
  const writing = [...texts.entries()].filter(([number]) => !recorded.includes(number)).at(-1);
  if (!running || !writing) return null;
  return (
    <>
      <h4>Writing…</h4>
      <pre className="agent-answer" data-live-text={writing[0]} aria-live="polite">
        {writing[1]}
      </pre>
    </>
  );
}
