// CodeMirror for json and code fields (loaded with the editor route, never on first paint).
import { javascript } from "@codemirror/lang-javascript";
import { json } from "@codemirror/lang-json";
import CodeMirror from "@uiw/react-codemirror";

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
  return (
    <CodeMirror
      id={props.id}
      value={props.value}
      aria-label={props.label}
      placeholder={props.placeholder}
      extensions={[props.language === "json" ? json() : javascript()]}
      basicSetup={{ foldGutter: false, highlightActiveLine: false }}
      minHeight={props.minHeight ?? "3.5em"}
      maxHeight="16em"
      onChange={props.onChange}
    />
  );
}
