import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/soak/**", "node_modules/**"],
    globalSetup: ["tests/helpers/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Vitest's default leaves a core idle; most test files wait on child processes and sockets, so every core is used
    // (on two cores: about 96 s instead of 170 s for the whole suite).
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
