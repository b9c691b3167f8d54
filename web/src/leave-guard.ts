// Leaving unsaved work asks first: in-app navigation (wouter's aroundNav), the browser's back and
// forward buttons, and closing or reloading the tab (beforeunload, the browser's own question).
import { useEffect } from "react";
import type { AroundNavHandler } from "wouter";

/** The pages holding unsaved work (one at most in practice: the editor): their question and address. */
const guards = new Map<symbol, { question: string; href: string }>();
let suspended = false;

const firstGuard = () => guards.values().next().value;

/** True when nothing would be lost, or the person agreed to lose it. */
export function confirmLeave(): boolean {
  const guard = firstGuard();
  return suspended || guard === undefined || window.confirm(guard.question);
}

/** For the router: a navigation happens only when confirmLeave() agrees. */
export const guardedNavigation: AroundNavHandler = (navigate, to, options) => {
  if (confirmLeave()) navigate(to, options);
};

/** Runs `leave` (a navigation already agreed to, e.g. after logging out) without asking again. */
export function leaveWithoutAsking(leave: () => void) {
  suspended = true;
  try {
    leave();
  } finally {
    suspended = false;
  }
}

// Back and forward: registered before the router subscribes (this module loads first), so that it
// runs before the router renders the next page, and stops it when the answer is to stay.
if (typeof window !== "undefined") {
  window.addEventListener(
    "popstate",
    (event) => {
      const guard = firstGuard();
      if (!guard || window.location.href === guard.href || confirmLeave()) return;
      event.stopImmediatePropagation();
      window.history.pushState(null, "", guard.href);
    },
    { capture: true },
  );
}

/** While `question` is set, leaving this page asks it. */
export function useLeaveGuard(question: string | null) {
  useEffect(() => {
    if (!question) return;
    const key = Symbol("leave guard");
    guards.set(key, { question, href: window.location.href });
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => {
      guards.delete(key);
      window.removeEventListener("beforeunload", onBeforeUnload);
    };
  }, [question]);
}
