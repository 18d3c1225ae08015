import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["tests/soak/**", "node_modules/**"],
    globalSetup: ["tests/helpers/global-setup.ts"],
    // Removes the temp folders each test file made through tests/helpers/temp-dir.ts once the file is done.
    setupFiles: ["tests/helpers/temp-dir-cleanup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Each worker keeps its modules from one test file to the next: importing src (the SDK, tree-sitter, the
    // transform of every module) was a third of the suite's time when paid again for every file. Tests hold
    // no state in modules (each makes its own temp dirs, scripted model and env) and leave process.env as they found it.
    isolate: false,
    // Vitest's default leaves a core idle; most test files wait on child processes and sockets, so every core is used
    // (on two cores: about 96 s instead of 170 s for the whole suite).
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
