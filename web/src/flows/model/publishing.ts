// What the editor says about a flow's published version and its draft: the bar's label, the
// notices after a save or a publish, the versions picker's marks and the rollback's question.

/** The two versions that matter: the one production runs, and the saved draft (null: none). */
export interface PublishState {
  published: number;
  draft: number | null;
}

/** The version a draft save is made against (the API's head): the draft's, else the published one. */
export const headVersion = (state: PublishState): number => state.draft ?? state.published;

/** The bar's label: "Published v1", or "Published v1 · Draft v2" while a draft waits. */
export function versionsLabel(state: PublishState): string {
  return state.draft === null
    ? `Published v${state.published}`
    : `Published v${state.published} · Draft v${state.draft}`;
}

/** After a draft save: the version saved, and whether production runs it yet. */
export function savedNotice(state: PublishState): string {
  if (state.draft === null) return `Saved: version ${state.published}. Production runs it: nothing to publish.`;
  return `Saved: version ${state.draft}. Not live yet: production runs version ${state.published}.`;
}

/** After a stored version was saved again as the draft. */
export function restoredNotice(restored: number, state: PublishState): string {
  if (state.draft === null) return `Version ${restored} is what production runs already: no draft to save.`;
  return `Restored version ${restored} as the draft, version ${state.draft}. Not live yet: production runs version ${state.published}.`;
}

/** After a publish (the draft, or a rollback to an older version). */
export function publishedNotice(state: PublishState): string {
  const kept = state.draft === null ? "" : ` The draft (version ${state.draft}) stays unpublished.`;
  return `Published version ${state.published}: production runs it now.${kept}`;
}

/** When the published version changed under the editor (409 on publish). */
export function publishConflictNotice(current: number | undefined): string {
  const now = current === undefined ? "" : ` (production runs version ${current})`;
  return `Another version was published meanwhile${now}: nothing was published. Look at it, then publish again.`;
}

/** What the versions picker adds to a version's label: whether it is the published one or the draft. */
export function versionMark(version: number, state: PublishState): string {
  if (version === state.published) return "published";
  if (version === state.draft) return "draft";
  return "";
}

/** The confirmation a rollback asks, naming the version published now and the one to publish. */
export function rollbackQuestion(target: number, state: PublishState): string {
  const draft = state.draft === null ? "" : ` The draft (version ${state.draft}) stays as it is.`;
  return `Publish version ${target} in place of version ${state.published}? Production runs version ${target} from now on.${draft}`;
}

/** A flow list's badge title for a flow with a draft. */
export const draftBadgeTitle = (draft: number): string => `Draft v${draft} not published`;

/** When a draft save was refused because another version was saved meanwhile (409 on save). */
export function saveConflictNotice(saved: number, author: string | null): string {
  const by = author ? ` (${author})` : "";
  return `Version ${saved} was saved meanwhile by someone else${by}: your changes are not saved. Load version ${saved} (your changes are discarded), or save yours as a new draft on top of it (both stay among the versions).`;
}

/** The confirmation loading the version saved meanwhile asks. */
export const loadSavedQuestion = (saved: number): string =>
  `Discard your changes on the canvas and load version ${saved}?`;

/** After the version saved meanwhile was loaded on the canvas. */
export function loadedNotice(loaded: number, state: PublishState): string {
  if (loaded === state.draft)
    return `Loaded version ${loaded}, the draft: your changes are discarded. Not live yet: production runs version ${state.published}.`;
  return `Loaded version ${loaded}: your changes are discarded.${loaded === state.published ? " Production runs it." : ""}`;
}
