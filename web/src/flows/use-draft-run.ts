// Running the flow: a run of the saved version (active flows only) or a test run of the canvas as it
// is (unsaved, on an inactive flow too), on the run input; "Run to here" tests up to one node; a
// schedule's test fire tests the canvas on the input a fire would give it now. Test runs send the
// draft's pins (their nodes are not executed); a run of the saved version never does.
import { useMutation } from "@tanstack/react-query";
import { useCallback } from "react";
import { useForm } from "react-hook-form";
import { useLocation } from "wouter";
import { client, read } from "../api";
import { useTestRun } from "../components/test-run";
import type { FlowDetail } from "../types";
import { scheduleFireInput } from "./model/schedule-fire";
import type { DraftChecks, DraftGraph } from "./use-draft-graph";
import { pinsToSend, type Pins } from "./use-pins";

/** Why a run's input cannot be sent, or true when it is a JSON object. */
export function runInputProblem(text: string): true | string {
  try {
    const value = JSON.parse(text) as unknown;
    return (value !== null && typeof value === "object" && !Array.isArray(value)) || "The input must be a JSON object";
  } catch {
    return "The input is not valid JSON";
  }
}

export function useDraftRun(flow: FlowDetail, graph: DraftGraph, checks: DraftChecks, pins: Pins) {
  const [, navigate] = useLocation();
  const form = useForm({ mode: "onChange", defaultValues: { input: "{}" } });
  const run = useMutation({
    mutationFn: (input: string) =>
      read(
        client.POST("/api/workflows/{id}/run", {
          params: { path: { id: flow.id } },
          body: { input: JSON.parse(input) as Record<string, unknown> },
        }),
      ),
    onSuccess: (started) => navigate(`/runs/${started.run_id}`),
  });
  // A test run: the editor's checks first, as a save's.
  const test = useTestRun(flow.id);
  // A captured test event becomes the input Test flow runs the draft on.
  const setRunInput = form.setValue;
  const onTestEvent = useCallback(
    (captured: Record<string, unknown>) =>
      setRunInput("input", JSON.stringify(captured, null, 2), { shouldValidate: true, shouldDirty: true }),
    [setRunInput],
  );
  // `until`: "Run to here", the node and its ancestors only.
  const testCanvas = (input: string, until?: string) => {
    const fieldsRead = checks.drafts.readyToSave();
    if (!checks.problems.readyToSave() || !fieldsRead) return;
    const sent = { nodes: graph.nodes, edges: graph.edges };
    // A trigger's output is the input: it is never pinned.
    const pinnable = graph.nodes.filter((node) => node.data.category !== "trigger");
    const pinned = pinsToSend(
      pins,
      pinnable.map((node) => node.id),
    );
    test.start.mutate(
      {
        definition: graph.definition,
        input: JSON.parse(input) as Record<string, unknown>,
        ...(until ? { until } : {}),
        ...(pinned ? { pins: pinned } : {}),
      },
      { onError: (error) => checks.problems.report(error, sent) },
    );
  };
  /** "Test a fire now": the run input becomes a fire's at this moment, and the canvas is tested on it. */
  const testFire = () => {
    const input = JSON.stringify(scheduleFireInput(flow.id, new Date()), null, 2);
    setRunInput("input", input, { shouldValidate: true, shouldDirty: true });
    testCanvas(input);
  };
  return { form, run, test, onTestEvent, testCanvas, testFire };
}
