/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The API's origin for a dashboard hosted apart from it (build time; index.html's meta wins). */
  readonly VITE_API_BASE?: string;
}
