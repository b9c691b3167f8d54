// "+" on a node's outputs: a searchable picker of the catalog (type to filter, arrows to move,
// Enter to add, Esc to close) whose choice is placed right of the node and connected from that
// output (use-graph-edits.ts addNext).
import { createContext, useContext, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { NodeIcon } from "../components/node-icons";
import { ERROR_BRANCH } from "../components/node-settings";
import type { CatalogEntry } from "../types";
import { paletteGroups } from "./palette";

/**
 * A "+" pressed: the node and output to add from (null: the main one; else the output's label, a
 * branch or "error"), and the button, for placing and refocusing.
 */
export interface AddNextRequest {
  nodeId: string;
  handle: string | null;
  button: HTMLElement;
}

/** Opens the picker for a node's output; null where nothing is added (a phone's read-only canvas). */
export const AddNextContext = createContext<((request: AddNextRequest) => void) | null>(null);

/** The "+" beside an output of a node on the canvas: its main or error handle, or one of its branches. */
export function AddNextButton(props: { nodeId: string; handle: string | null; label: string }) {
  const open = useContext(AddNextContext);
  if (!open) return null;
  return (
    <button
      type="button"
      className={`add-next nodrag nopan${props.handle === ERROR_BRANCH ? " add-next-bottom" : ""}`}
      aria-label={props.label}
      title={props.label}
      onClick={(event) => open({ nodeId: props.nodeId, handle: props.handle, button: event.currentTarget })}
    >
      +
    </button>
  );
}

const PICKER_WIDTH = 260;
const PICKER_HEIGHT = 320;

/** Right of the "+", kept inside the window. */
function pickerPlace(button: HTMLElement) {
  const rect = button.getBoundingClientRect();
  return {
    left: Math.max(8, Math.min(rect.right + 6, window.innerWidth - PICKER_WIDTH - 8)),
    top: Math.max(8, Math.min(rect.top - 12, window.innerHeight - PICKER_HEIGHT - 8)),
  };
}

/** Up, down, Enter and Esc in the picker's search field. */
function pickerKeys(event: KeyboardEvent, count: number, moveTo: (next: (index: number) => number) => void) {
  const moves: Record<string, (index: number) => number> = {
    ArrowDown: (index) => Math.min(index + 1, count - 1),
    ArrowUp: (index) => Math.max(index - 1, 0),
    Home: () => 0,
    End: () => count - 1,
  };
  const move = moves[event.key];
  if (!move) return false;
  event.preventDefault();
  moveTo(move);
  return true;
}

export function NodePicker(props: {
  catalog: CatalogEntry[];
  request: AddNextRequest;
  onPick: (type: string) => void;
  /** `refocus`: the "+" takes the focus back (Esc); not when the focus went elsewhere. */
  onClose: (refocus: boolean) => void;
}) {
  const [filter, setFilter] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  // A trigger starts a flow: it cannot follow a node.
  const entries = useMemo(
    () =>
      paletteGroups(
        props.catalog.filter((entry) => entry.category !== "trigger"),
        filter,
      ).flatMap((group) => group.entries),
    [props.catalog, filter],
  );
  const activeId = entries[active] ? `add-next-${entries[active].type}` : undefined;
  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    if (activeId) document.getElementById(activeId)?.scrollIntoView({ block: "nearest" });
  }, [activeId]);
  const onKeyDown = (event: KeyboardEvent) => {
    if (pickerKeys(event, entries.length, setActive)) return;
    if (event.key === "Enter") {
      event.preventDefault();
      if (entries[active]) props.onPick(entries[active].type);
    } else if (event.key === "Escape") {
      event.preventDefault();
      props.onClose(true);
    }
  };
  return (
    <div
      className="node-picker"
      role="dialog"
      aria-label="Add the next node"
      style={pickerPlace(props.request.button)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) props.onClose(false);
      }}
    >
      <input
        ref={input}
        role="combobox"
        aria-label="Find a node to add"
        aria-expanded="true"
        aria-controls="add-next-options"
        aria-autocomplete="list"
        aria-activedescendant={activeId}
        placeholder="Find a node"
        value={filter}
        onChange={(event) => {
          setFilter(event.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      <PickerOptions entries={entries} active={active} onActive={setActive} onPick={props.onPick} />
    </div>
  );
}

function PickerOptions(props: {
  entries: CatalogEntry[];
  active: number;
  onActive: (index: number) => void;
  onPick: (type: string) => void;
}) {
  if (props.entries.length === 0) return <p className="muted small">No node matches.</p>;
  return (
    // The field keeps the focus: a press on an option does not take it (the picker would close).
    <ul id="add-next-options" role="listbox" aria-label="Nodes" onMouseDown={(event) => event.preventDefault()}>
      {props.entries.map((entry, index) => (
        <li
          key={entry.type}
          id={`add-next-${entry.type}`}
          role="option"
          aria-selected={index === props.active}
          data-picker-type={entry.type}
          onMouseEnter={() => props.onActive(index)}
          onClick={() => props.onPick(entry.type)}
        >
          <NodeIcon type={entry.type} category={entry.category} />
          <span>{entry.name}</span>
          <small>{entry.category}</small>
        </li>
      ))}
    </ul>
  );
}
