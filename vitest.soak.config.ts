import { defineConfig } from "vitest/config";

// `npm run soak`: the long reliability runs (tests/soak), kept out of `npm test`.
export default defineConfig({
  test: {
    include: ["tests/soak/**/*.test.ts"],
    globalSetup: ["tests/helpers/global-setup.ts"],
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
