// Builds the package's code once: every entry (the core, its modules, the CLI) in one esbuild run into dist/pkg, sharing chunks.
// Node 20 loads a package of many ES modules at a fraction of a millisecond per file; one file of the same code loads in a third of the time.
import { build, transform } from "esbuild";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("..", import.meta.url);
const OUT = "dist/pkg";

/** The entries: `import "miniclaw"`, its subpath exports, and the command line. */
const ENTRIES = ["src/index.ts", "src/shell/index.ts", "src/mcp/index.ts", "src/postgres/index.ts", "src/cron/index.ts", "src/providers/index.ts", "src/telemetry/index.ts", "src/testing/index.ts", "src/cli/main.ts"];

/**
 * Left out, loaded from node_modules when used: the optional peers (PostgreSQL, MCP, the providers' SDKs, OpenTelemetry), web-tree-sitter (it finds its .wasm
 * file beside its own module), and cron's schedule packages (required only by cron, lazily). The rest is
 * bundled: the SDK alone is 274 modules (250 ms to import on a 2-core machine; 75 ms as one file), and zod's namespace
 * import keeps only the parts miniclaw uses (a user's tools are still checked by the user's own schemas).
 */
const EXTERNAL = ["pg", "pg-boss", "@modelcontextprotocol/client", "@anthropic-ai/bedrock-sdk", "@anthropic-ai/vertex-sdk", "@anthropic-ai/foundry-sdk", "web-tree-sitter", "node-schedule", "cron-parser", "@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http"];

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

/**
 * esbuild writes strings as ASCII but keeps comments as they are, and one character outside ASCII makes Node decode
 * the whole file slower and V8 hold and scan it as a two-byte string. Such characters are escaped in place, but only
 * when that changes nothing but comments: the file without its comments and whitespace must read the same.
 */
async function escapeToAscii(dir) {
  for (const entry of readdirSync(new URL(dir, root), { recursive: true }).filter((n) => n.endsWith(".js"))) {
    const file = new URL(`${dir}/${entry}`, root);
    const code = readFileSync(file, "utf8");
    const ascii = code.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
    if (ascii === code) continue;
    const bare = async (text) => (await transform(text, { minifyWhitespace: true, format: "esm", charset: "ascii" })).code;
    if ((await bare(code)) === (await bare(ascii))) writeFileSync(file, ascii);
    // Outside a comment (a regular expression, a template), only the source can say it another way: say where.
    else console.warn(`bundle: ${dir}/${entry} keeps characters outside ASCII outside its comments; spell them as \\u escapes in the source`);
  }
}

for (const dir of [OUT, "dist/cli-bundle", "dist/lib"]) rmSync(new URL(dir, root), { recursive: true, force: true });
await build({
  // Paths from the package's folder, whatever folder the build is started from (bin/miniclaw.js starts it from the user's).
  absWorkingDir: fileURLToPath(root),
  entryPoints: ENTRIES,
  outdir: OUT,
  outbase: "src",
  entryNames: "[dir]/[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: EXTERNAL,
  logLevel: "warning",
  banner: { js: REQUIRE_BANNER },
});
await escapeToAscii(OUT);

/**
 * The bash grammar: the one file of tree-sitter-bash miniclaw reads, shipped in the package with its licence, so a user's
 * install has neither that package's 20 MB (C sources, native prebuilds) nor its native-binding install script.
 */
mkdirSync(new URL(`${OUT}/grammar`, root), { recursive: true });
copyFileSync(new URL("node_modules/tree-sitter-bash/tree-sitter-bash.wasm", root), new URL(`${OUT}/grammar/tree-sitter-bash.wasm`, root));
copyFileSync(new URL("node_modules/tree-sitter-bash/LICENSE", root), new URL(`${OUT}/grammar/LICENSE-tree-sitter-bash`, root));
