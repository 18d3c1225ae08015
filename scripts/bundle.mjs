// Builds dist/'s two esbuild bundles from src/: the library (`import "miniclaw"`, dist/lib) and the CLI (dist/cli-bundle).
// Node 20 loads a package of many ES modules at a fraction of a millisecond per file; one file of the same code loads in a third of the time.
import { build, transform } from "esbuild";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";

const root = new URL("..", import.meta.url);
const { dependencies } = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));

/**
 * Bundled into the library: what every `import "miniclaw"` loads before its first request. The SDK alone is 274
 * modules (250 ms to import on a 2-core machine; 75 ms as one file). A client the caller builds from its own copy
 * of the SDK still works: the loop knows the SDK's errors by their fields (model/api-error.ts), not their class.
 */
const LIBRARY_BUNDLED = ["@anthropic-ai/sdk", "gray-matter"];
/**
 * Left out of the CLI bundle: the tree-sitter packages find their .wasm files beside their own modules, and
 * node-schedule and cron-parser are required only by cron, lazily.
 */
const CLI_EXTERNAL = ["web-tree-sitter", "tree-sitter-bash", "node-schedule", "cron-parser"];

/**
 * CommonJS code in an ES module bundle calls `require` for Node's builtins. js-yaml 3 (gray-matter's YAML) also
 * requires esprima (283 KB, 15-20 ms to load) behind an alias esbuild cannot see, only to read `!!js/function`
 * tags, which gray-matter's safeLoad never reads: that require fails as when esprima is not installed.
 */
const REQUIRE_BANNER = [
  "import { createRequire as __createRequire } from 'node:module';",
  "const __nodeRequire = __createRequire(import.meta.url);",
  "const require = Object.assign((id) => { if (id === 'esprima') throw Object.assign(new Error(\"Cannot find module 'esprima'\"), { code: 'MODULE_NOT_FOUND' }); return __nodeRequire(id); }, __nodeRequire);",
].join(" ");

const common = { bundle: true, platform: "node", format: "esm", target: "node20", splitting: true, logLevel: "warning", banner: { js: REQUIRE_BANNER } };

/**
 * esbuild writes strings as ASCII but keeps comments as they are, and one character outside ASCII makes Node decode
 * the whole file slower and V8 hold and scan it as a two-byte string: about 10 ms more to import the CLI's two largest
 * chunks. Such characters are escaped in place, but only when that changes nothing but comments: the file without
 * its comments and whitespace must read the same before and after.
 */
async function escapeToAscii(dir) {
  for (const name of readdirSync(new URL(dir, root)).filter((n) => n.endsWith(".js"))) {
    const file = new URL(`${dir}/${name}`, root);
    const code = readFileSync(file, "utf8");
    const ascii = code.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
    if (ascii === code) continue;
    const bare = async (text) => (await transform(text, { minifyWhitespace: true, format: "esm", charset: "ascii" })).code;
    if ((await bare(code)) === (await bare(ascii))) writeFileSync(file, ascii);
    // Outside a comment (a regular expression, a template), only the source can say it another way: say where.
    else console.warn(`bundle: ${dir}/${name} keeps characters outside ASCII outside its comments; spell them as \\u escapes in the source`);
  }
}

for (const dir of ["dist/cli-bundle", "dist/lib"]) rmSync(new URL(dir, root), { recursive: true, force: true });
await Promise.all([
  // The library leaves out every other dependency: a user's zod is the one its tools' schemas are checked with, and
  // PostgreSQL, MCP, tree-sitter and cron load only when used.
  build({ ...common, entryPoints: ["src/index.ts"], outdir: "dist/lib", external: Object.keys(dependencies).filter((name) => !LIBRARY_BUNDLED.includes(name)) }),
  build({ ...common, entryPoints: ["src/cli/main.ts"], outdir: "dist/cli-bundle", external: CLI_EXTERNAL }),
]);
await Promise.all(["dist/cli-bundle", "dist/lib"].map(escapeToAscii));
