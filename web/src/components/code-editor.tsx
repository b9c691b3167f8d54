// CodeMirror for json and code fields (loaded with the editor route, never on first paint).
import { javascript } from "@codemirror/lang-javascript";
import { json } from "@codemirror/lang-json";
import CodeMirror, { EditorView } from "@uiw/react-codemirror";
import { useMemo } from "react";

export interface CodeEditorProps {
  id?: string;
  value: string;
  language: "json" | "javascript";
  placeholder?: string;
  label: string;
  onChange: (text: string) => void;
  minHeight?: string;
}

export default function CodeEditor(props: CodeEditorProps) {
  const extensions = useMemo(
    () => [
      props.language === "json" ? json() : javascript(),
      // The editable element itself is what a screen reader announces: it carries the name.
      EditorView.contentAttributes.of({ "aria-label": props.label }),
    ],
    [props.language, props.label],
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
