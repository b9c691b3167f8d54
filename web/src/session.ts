import { useQuery } from "@tanstack/react-query";
import { ApiError, client, read } from "./api";

/** The session, or null when there is none (401). */
export function useSession() {
  return useQuery({
    queryKey: ["session"],
    queryFn: async () => {
      try {
        return await read(client.GET("/api/auth/session"));
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}
