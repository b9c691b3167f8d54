// Whether the screen is a phone's (under 768 px, the width styles.css folds the layout at).
import { useSyncExternalStore } from "react";

const NARROW = "(max-width: 767px)";

const subscribe = (onChange: () => void) => {
  const query = window.matchMedia(NARROW);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
};

export const useNarrowScreen = (): boolean => useSyncExternalStore(subscribe, () => window.matchMedia(NARROW).matches);
