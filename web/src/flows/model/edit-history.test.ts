import { describe, expect, it } from "vitest";
import { EditHistory } from "./edit-history";

describe("the editor's undo and redo", () => {
  it("undoes and redoes in order, and a new change drops what could be redone", () => {
    const history = new EditHistory("a");
    expect(history.canUndo).toBe(false);
    history.record("b");
    history.record("c");
    expect(history.undo()).toBe("b");
    expect(history.undo()).toBe("a");
    expect(history.undo()).toBeUndefined();
    expect(history.redo()).toBe("b");
    expect(history.canRedo).toBe(true);
    history.record("d");
    expect(history.canRedo).toBe(false);
    expect(history.redo()).toBeUndefined();
    expect(history.undo()).toBe("b");
  });

  it("does not record the state already current (one an undo restored), and keeps at most its limit", () => {
    const history = new EditHistory("a", 3);
    history.record("b");
    expect(history.undo()).toBe("a");
    history.record("a");
    expect(history.redo()).toBe("b");
    history.record("c");
    history.record("d");
    expect([history.undo(), history.undo(), history.undo()]).toEqual(["c", "b", undefined]);
  });
});
