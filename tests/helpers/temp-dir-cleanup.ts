// Setup file of every test file (vitest.config.ts `setupFiles`): removes the temp folders the file made through temp-dir.ts.
// Vitest imports a setup file anew before each test file, even with `isolate: false`, so this hook is registered per file;
// registered first, it runs after the file's own `afterAll` hooks (sequence.hooks "stack"), once its servers and children are gone.
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dir.js";

afterAll(removeTempDirs);
