import { defineConfig } from "vitest/config";

// `npm run soak`: the long reliability runs (tests/soak), kept out of `npm test`.
export default defineConfig({
  test: {
    include: ["tests/soak/**/*.test.ts"],
    globalSetup: ["tests/helpers/global-setup.ts"],
    // Removes the temp folders each test file made through tests/helpers/temp-dir.ts once the file is done.
    setupFiles: ["tests/helpers/temp-dir-cleanup.ts"],
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
