// The side panel with no node or edge selected: the run input, Run and Test flow (and a schedule's
// test fire), the hook's test listen and URL, the error flow, flow control, the schedule and the versions.
import { Controller } from "react-hook-form";
import { apiUrl, describeError } from "../api";
import { ScheduleInfo, Versions } from "../components/flow-extras";
import { FlowControlFields } from "../components/flow-control";
import { HookTestListen } from "../components/hook-test-listen";
import { LazyCodeEditor } from "../components/lazy-code-editor";
import { ErrorMessage } from "../ui/status-badge";
import { TestRunResults } from "../components/test-run";
import type { FlowDetail } from "../types";
import { ErrorFlowPicker } from "./error-flow-picker";
import { startsWithSchedule } from "./model/schedule-fire";
import { runInputProblem } from "./use-draft-run";
import type { FlowDraft } from "./use-flow-draft";

/**
 * The run input and the ways to run it: the published version (active flows only) or the canvas as
 * a test, and for a schedule, the canvas as a test on a fire's input of now.
 */
function RunForm({ draft }: { draft: FlowDraft }) {
  const { form, run, test, testCanvas, testFire } = draft.run;
  const { status, published, draft: drafted } = draft.versions;
  return (
    <form onSubmit={form.handleSubmit(({ input }) => run.mutate(input))}>
      <label className="field" htmlFor="run-input">
        Input (JSON object)
      </label>
      <Controller
        name="input"
        control={form.control}
        rules={{ validate: runInputProblem }}
        render={({ field, fieldState }) => (
          <>
            <div className="code-field" data-field="run-input">
              <LazyCodeEditor
                id="run-input"
                value={field.value}
                label="Run input"
                language="json"
                onChange={field.onChange}
                minHeight="5em"
              />
            </div>
            {fieldState.error && <p className="field-error">{fieldState.error.message}</p>}
          </>
        )}
      />
      {/* Only active flows run (the API refuses the others), and a run uses the published version. */}
      {status !== "active" ? (
        <p className="hint">Activate the flow to run it: only active flows run.</p>
      ) : (
        (draft.graph.dirty || drafted !== null) && (
          <p className="hint">Run starts the published version ({published}); Test flow runs the canvas.</p>
        )
      )}
      <button
        type="submit"
        className="primary"
        disabled={!form.formState.isValid || run.isPending || status !== "active"}
      >
        Run
      </button>{" "}
      <button
        type="button"
        disabled={!form.formState.isValid || test.start.isPending}
        onClick={form.handleSubmit(({ input }) => testCanvas(input))}
      >
        Test flow
      </button>
      {startsWithSchedule(draft.graph.definition) && (
        <>
          {" "}
          <button
            type="button"
            disabled={test.start.isPending}
            onClick={testFire}
            title="Test the canvas on the input a fire of the schedule would give it now; the schedule stays as it is"
          >
            Test a fire now
          </button>
        </>
      )}
    </form>
  );
}

/** The definition's own settings: the error flow and flow control. */
function FlowSettingsFields({ flowId, draft }: { flowId: string; draft: FlowDraft }) {
  const { settings, setSettings, touch } = draft.graph;
  return (
    <>
      <ErrorFlowPicker
        flowId={flowId}
        value={settings.error_flow_id}
        onChange={(errorFlowId) => {
          const { error_flow_id: _previous, ...rest } = settings;
          setSettings(errorFlowId ? { ...rest, error_flow_id: errorFlowId } : rest);
          touch();
        }}
      />
      <FlowControlFields
        settings={settings}
        onChange={(next) => {
          setSettings(next);
          touch();
        }}
      />
    </>
  );
}

export function RunPanel({ flow, draft }: { flow: FlowDetail; draft: FlowDraft }) {
  const { run, test, onTestEvent } = draft.run;
  const hookUrl = flow.hook ? apiUrl(flow.hook.path) : null;
  return (
    <div>
      <h2>Run</h2>
      {draft.graph.nodes.length === 0 && <p className="empty">Drag a trigger from the palette to start the flow.</p>}
      <p className="muted small">
        Select a node to edit its settings. Runs use the published version; Test flow runs the canvas as it is (the
        draft, unsaved changes too), on an inactive flow too, as a test run.
      </p>
      <RunForm draft={draft} />
      {hookUrl && <HookTestListen flowId={flow.id} onCaptured={onTestEvent} />}
      <ErrorMessage error={run.error ? describeError(run.error) : null} />
      <ErrorMessage error={test.start.error ? describeError(test.start.error) : null} />
      <TestRunResults test={test} />
      <FlowSettingsFields flowId={flow.id} draft={draft} />
      <ScheduleInfo schedule={flow.schedule} />
      <Versions
        flowId={flow.id}
        current={draft.graph.definition}
        publishState={draft.versions.state}
        onRestore={draft.save.restoreVersion}
        onPublish={draft.publish.rollBack}
      />
      {hookUrl && (
        <div className="hook">
          <h3>Hook URL</h3>
          <code>{hookUrl}</code>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(hookUrl)}>
            Copy
          </button>
          {!flow.hook?.live && <p className="muted small">Answers only while the flow is active.</p>}
        </div>
      )}
    </div>
  );
}
