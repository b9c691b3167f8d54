// CodeMirror for json and code fields (loaded with the editor route, never on first paint).
import { javascript } from "@codemirror/lang-javascript";
import { json } from "@codemirror/lang-json";
import CodeMirror, { EditorState, EditorView } from "@uiw/react-codemirror";
import type { Completion } from "./expression-help";
import { useMemo, useRef } from "react";

export interface CodeEditorProps {
  id?: string;
  value: string;
  language: "json" | "javascript";
  placeholder?: string;
  label: string;
  onChange: (text: string) => void;
  minHeight?: string;
  /** References to offer inside {{ }} at a caret (basicSetup's autocompletion shows them). */
  completions?: (text: string, caret: number) => Completion | null;
}

/** CodeMirror's completion source (typed by shape: @codemirror/autocomplete is basicSetup's own). */
function templateSource(complete: { current: CodeEditorProps["completions"] }) {
  return (context: { state: EditorState; pos: number }) => {
    const found = complete.current?.(context.state.doc.toString(), context.pos);
    if (!found || found.options.length === 0) return null;
    return { from: found.from, to: found.to, options: found.options.map((label) => ({ label, type: "variable" })) };
  };
}

export default function CodeEditor(props: CodeEditorProps) {
  // The latest sample without reconfiguring the editor on each render (an open completion stays open).
  const completions = useRef(props.completions);
  completions.current = props.completions;
  const completing = props.completions !== undefined;
  // One source for the editor's life: CodeMirror keeps a source's pending answer only while it is the same.
  const source = useMemo(() => templateSource(completions), []);
  const extensions = useMemo(
    () => [
      props.language === "json" ? json() : javascript(),
      // The editable element itself is what a screen reader announces: it carries the name.
      EditorView.contentAttributes.of({ "aria-label": props.label }),
      ...(completing ? [EditorState.languageData.of(() => [{ autocomplete: source }])] : []),
    ],
    [props.language, props.label, completing, source],
  );
  return (
    <CodeMirror
      id={props.id}
      value={props.value}
      aria-label={props.label}
      placeholder={props.placeholder}
      extensions={extensions}
      basicSetup={{ foldGutter: false, highlightActiveLine: false }}
      minHeight={props.minHeight ?? "3.5em"}
      maxHeight="16em"
      onChange={props.onChange}
    />
  );
}
