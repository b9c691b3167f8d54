import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { precompress } from "./precompress.js";

// `npm run web:dev`: the dashboard with hot reload; API calls go to the running API (npm start).
const api = process.env.API_URL ?? "http://127.0.0.1:3000";
// The Host header stays the dev server's, so the API's CSRF check sees a same-origin request.
const proxied = { target: api, changeOrigin: false };

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), precompress()],
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1500 },
  server: {
    host: "127.0.0.1",
    proxy: { "/api": proxied, "/docs": proxied, "/healthz": proxied, "/readyz": proxied },
  },
});
