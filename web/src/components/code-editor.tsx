// CodeMirror for json and code fields (loaded with the editor route, never on first paint).
import { javascript } from "@codemirror/lang-javascript";
import { json } from "@codemirror/lang-json";
import CodeMirror, { EditorState, EditorView, tooltips } from "@uiw/react-codemirror";
import type { Completion } from "./expression-help";
import { closingAfter } from "./template-field";
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
  /** Where the caret is, each time it moves (a reference clicked in the input panel goes there). */
  onCaret?: (caret: number) => void;
}

/**
 * CodeMirror's completion source (typed by shape: @codemirror/autocomplete is basicSetup's own).
 * A picked reference closes its `}}` when nothing after it does.
 */
function templateSource(complete: { current: CodeEditorProps["completions"] }) {
  return (context: { state: EditorState; pos: number }) => {
    const text = context.state.doc.toString();
    const found = complete.current?.(text, context.pos);
    if (!found || found.options.length === 0) return null;
    const close = closingAfter(text, found.to);
    return {
      from: found.from,
      to: found.to,
      options: found.options.map((label) => ({ label, type: "variable", apply: `${label}${close}` })),
    };
  };
}

// Tooltips (the completion list) are placed in the page's body, so a narrow panel never cuts them
// off; CodeMirror keeps them inside the window.
const tooltipsInBody = typeof document === "undefined" ? [] : [tooltips({ parent: document.body })];

export default function CodeEditor(props: CodeEditorProps) {
  // The latest sample without reconfiguring the editor on each render (an open completion stays open).
  const completions = useRef(props.completions);
  completions.current = props.completions;
  const onCaret = useRef(props.onCaret);
  onCaret.current = props.onCaret;
  const completing = props.completions !== undefined;
  // One source for the editor's life: CodeMirror keeps a source's pending answer only while it is the same.
  const source = useMemo(() => templateSource(completions), []);
  const extensions = useMemo(
    () => [
      props.language === "json" ? json() : javascript(),
      // Long lines wrap: the whole value stays in view, and so does the caret's completion.
      EditorView.lineWrapping,
      ...tooltipsInBody,
      // The editable element itself is what a screen reader announces: it carries the name.
      EditorView.contentAttributes.of({ "aria-label": props.label }),
      EditorView.updateListener.of((update) => {
        if (update.selectionSet || update.docChanged) onCaret.current?.(update.state.selection.main.head);
      }),
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
      // Tab moves to the next control, as in any other field (a keyboard never gets stuck here).
      indentWithTab={false}
      minHeight={props.minHeight ?? "3.5em"}
      maxHeight="16em"
      onChange={props.onChange}
    />
  );
}
