import { describe, expect, it } from "vitest";
import {
  draftBadgeTitle,
  headVersion,
  loadedNotice,
  loadSavedQuestion,
  publishConflictNotice,
  publishedNotice,
  restoredNotice,
  rollbackQuestion,
  saveConflictNotice,
  savedNotice,
  versionMark,
  versionsLabel,
} from "./publishing";

const noDraft = { published: 1, draft: null };
const drafted = { published: 1, draft: 3 };

describe("what the editor says about publishing", () => {
  it("takes the draft as the head when there is one", () => {
    expect(headVersion(noDraft)).toBe(1);
    expect(headVersion(drafted)).toBe(3);
  });

  it("labels the bar with the published version and the draft", () => {
    expect(versionsLabel(noDraft)).toBe("Published v1");
    expect(versionsLabel(drafted)).toBe("Published v1 · Draft v3");
  });

  it("says a saved draft is not live yet, and names what production runs", () => {
    expect(savedNotice(drafted)).toBe("Saved: version 3. Not live yet: production runs version 1.");
    expect(savedNotice(noDraft)).toMatch(/^Saved: version 1\. Production runs it/);
    expect(restoredNotice(2, drafted)).toBe(
      "Restored version 2 as the draft, version 3. Not live yet: production runs version 1.",
    );
    expect(restoredNotice(1, noDraft)).toContain("what production runs already");
  });

  it("says what production runs after a publish, and that a rollback keeps the draft", () => {
    expect(publishedNotice({ published: 4, draft: null })).toBe("Published version 4: production runs it now.");
    expect(publishedNotice({ published: 1, draft: 4 })).toBe(
      "Published version 1: production runs it now. The draft (version 4) stays unpublished.",
    );
    expect(publishConflictNotice(5)).toContain("Another version was published meanwhile (production runs version 5)");
    expect(publishConflictNotice(undefined)).not.toContain("production runs version");
  });

  it("marks the published version and the draft, and names both in a rollback", () => {
    expect([1, 2, 3].map((v) => versionMark(v, drafted))).toEqual(["published", "", "draft"]);
    expect(rollbackQuestion(2, { published: 4, draft: 5 })).toBe(
      "Publish version 2 in place of version 4? Production runs version 2 from now on. The draft (version 5) stays as it is.",
    );
    expect(rollbackQuestion(2, { published: 4, draft: null })).not.toContain("draft");
    expect(draftBadgeTitle(3)).toBe("Draft v3 not published");
  });

  it("says who saved the version a save was refused for, and what loading it did", () => {
    expect(saveConflictNotice(4, "Ada")).toMatch(
      /^Version 4 was saved meanwhile by someone else \(Ada\): your changes are not saved\. Load version 4 /,
    );
    expect(saveConflictNotice(4, null)).toMatch(/^Version 4 was saved meanwhile by someone else: /);
    expect(loadSavedQuestion(4)).toBe("Discard your changes on the canvas and load version 4?");
    expect(loadedNotice(4, { published: 1, draft: 4 })).toBe(
      "Loaded version 4, the draft: your changes are discarded. Not live yet: production runs version 1.",
    );
    expect(loadedNotice(4, { published: 4, draft: null })).toBe(
      "Loaded version 4: your changes are discarded. Production runs it.",
    );
  });
});
