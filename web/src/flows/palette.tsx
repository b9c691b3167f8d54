// The node palette: the catalog by category, filtered as typed; a node is dragged onto the canvas,
// or double-clicked (Enter or Space on a focused item) to add it after the selected node.
import { useMemo, useState } from "react";
import { NodeIcon } from "../components/node-icons";
import type { CatalogEntry } from "../types";

/** The drag's data type: the dragged node's type, read by the canvas's drop. */
export const DRAG_TYPE = "application/x-svc-node";
const CATEGORY_ORDER = ["trigger", "logic", "data", "integration", "ai", "utility"];

/** The entries matching `filter` (name, type or description), grouped by category in CATEGORY_ORDER. */
export function paletteGroups(catalog: CatalogEntry[], filter: string) {
  const needle = filter.trim().toLowerCase();
  const matching = catalog.filter(
    (entry) => !needle || `${entry.name} ${entry.type} ${entry.description}`.toLowerCase().includes(needle),
  );
  const categories = [...new Set(matching.map((e) => e.category))].sort(
    (a, b) => ((CATEGORY_ORDER.indexOf(a) + 99) % 99) - ((CATEGORY_ORDER.indexOf(b) + 99) % 99),
  );
  return categories.map((category) => ({ category, entries: matching.filter((e) => e.category === category) }));
}

export function Palette({ catalog, onAdd }: { catalog: CatalogEntry[]; onAdd: (type: string) => void }) {
  const [filter, setFilter] = useState("");
  const groups = useMemo(() => paletteGroups(catalog, filter), [catalog, filter]);
  return (
    <aside className="palette" aria-label="Node palette">
      <input
        aria-label="Filter nodes"
        placeholder="Filter nodes"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      <p className="hint">Drag a node onto the canvas (or double-click it).</p>
      {groups.map(({ category, entries }) => (
        <div key={category} className="palette-group">
          <h3>{category}</h3>
          {entries.map((entry) => (
            <div
              key={entry.type}
              className="palette-item"
              data-palette-type={entry.type}
              role="button"
              tabIndex={0}
              draggable
              title={entry.description}
              onDragStart={(e) => {
                e.dataTransfer.setData(DRAG_TYPE, entry.type);
                e.dataTransfer.effectAllowed = "move";
              }}
              onDoubleClick={() => onAdd(entry.type)}
              onKeyDown={(e) => {
                // The keyboard's double-click: Enter or Space adds the node.
                if (e.key !== "Enter" && e.key !== " ") return;
                e.preventDefault();
                onAdd(entry.type);
              }}
            >
              <strong>
                <NodeIcon type={entry.type} category={entry.category} />
                {entry.name}
              </strong>
              {!entry.official && <span className="badge custom">custom</span>}
              <small>{entry.description}</small>
            </div>
          ))}
        </div>
      ))}
    </aside>
  );
}
