import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Router } from "wouter";
import { ApiError } from "./api";
import { App } from "./app";
import { guardedNavigation } from "./leave-guard";
import "./styles.css";

const queryClient: QueryClient = new QueryClient({
  // A session that ended (expired, or logged out elsewhere) sends every page back to the login form.
  queryCache: new QueryCache({
    onError: (error, query) => {
      if (error instanceof ApiError && error.status === 401 && query.queryKey[0] !== "session") {
        queryClient.setQueryData(["session"], null);
      }
    },
  }),
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; network trouble may.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      {/* Every navigation asks first while a page holds unsaved work (see leave-guard.ts). */}
      <Router aroundNav={guardedNavigation}>
        <App />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
