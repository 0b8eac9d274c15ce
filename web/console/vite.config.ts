import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// One app, two areas: the gateway serves index.html at /admin/* and /store/*
// and the hashed assets at /console/assets/ (web/console/console.go). The
// build is checked in (dist/) and compared with a fresh one by
// deploy/e2e TestConsoleBuildIsFresh, so it must not depend on the machine:
// no source maps (they hold paths), no timestamps.
export default defineConfig({
  base: "/console/",
  plugins: [react()],
  resolve: {
    alias: {
      // The typed API generated from the services' declarations.
      "@marketplace/api": fileURLToPath(new URL("../../clients/typescript/api.js", import.meta.url)),
    },
    // api.js imports convex/server: take it from this app's node_modules.
    dedupe: ["convex", "react", "react-dom"],
  },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    sourcemap: false,
    // dist/.vite/manifest.json: the chunks and their static imports, for the
    // first-load size check (not served: go:embed skips dot directories).
    manifest: true,
    target: "es2022",
    reportCompressedSize: false,
    // The entry chunk holds React, Mantine and Convex's client; the first-load
    // budget (350 KB of gzipped script) is checked by web/console's tests.
    chunkSizeWarningLimit: 1024,
  },
});
