// CodeMirror loads on first use; until then (and in server-side rendering) a plain textarea shows the text.
import { lazy, Suspense } from "react";

const CodeEditor = lazy(() => import("./code-editor"));

export function LazyCodeEditor(props: {
  id: string;
  value: string;
  language: "json" | "javascript";
  placeholder?: string;
  label: string;
  onChange: (text: string) => void;
  minHeight?: string;
}) {
  const fallback = (
    <textarea id={props.id} name={props.id} value={props.value} placeholder={props.placeholder} rows={3} readOnly />
  );
  return (
    <Suspense fallback={fallback}>
      <CodeEditor {...props} />
    </Suspense>
  );
}
