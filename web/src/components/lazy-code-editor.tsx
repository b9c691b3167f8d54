// CodeMirror loads on first use; until then (and in server-side rendering) a plain textarea shows the text.
import { lazy, Suspense } from "react";
import type { CodeEditorProps } from "./code-editor";

const CodeEditor = lazy(() => import("./code-editor"));

export function LazyCodeEditor(props: CodeEditorProps & { id: string }) {
  const fallback = (
    <textarea id={props.id} name={props.id} value={props.value} placeholder={props.placeholder} rows={3} readOnly />
  );
  return (
    <Suspense fallback={fallback}>
      <CodeEditor {...props} />
    </Suspense>
  );
}
