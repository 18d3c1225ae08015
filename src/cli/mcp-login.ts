// `miniclaw mcp login NAME`: signs in to an http MCP server, the authorization page opened with $BROWSER or printed.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import { MCP_CREDENTIALS_FILE } from "../mcp/credential-store.js";
import { signInToServer } from "../mcp/login.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { visibleLine } from "./visible-text.js";

/** Signs in to one server of mcp.json (the page opened with `$BROWSER URL`, else printed; the browser returns to 127.0.0.1) and says where the tokens went. 0, or one line naming the server. */
export async function mcpLogin(args: CliArgs, io: CliIo, workspace: string): Promise<number> {
  const name = args.words[1];
  if (name === undefined || args.words.length > 2) throw new ConfigError("usage: miniclaw mcp login NAME");
  const browser = io.env["BROWSER"]?.trim();
  const outcome = await signInToServer(workspace, name, io.env, {
    open: (url) => {
      io.stdout.write(`To sign in to "${name}", open this page (it comes back to miniclaw on 127.0.0.1):\n  ${url.href}\n`);
      if (browser) openWith(browser, url.href, io);
    },
  }).catch((error: unknown) => {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  });
  const file = join(workspace, MCP_CREDENTIALS_FILE);
  if (!outcome.signedIn) io.stdout.write(`"${name}" connected without asking for sign-in (${outcome.tools} tools); nothing was stored.\n`);
  else io.stdout.write(`Signed in to "${name}" (${outcome.tools} tools). Its tokens are in ${visibleLine(file, 200)}, readable by you alone.\n`);
  return 0;
}

/** Runs `$BROWSER URL` through the shell (BROWSER may hold arguments), detached and silent; a failure is one line. */
function openWith(browser: string, url: string, io: CliIo): void {
  const child = spawn("/bin/sh", ["-c", `${browser} "$1"`, "sh", url], { detached: true, stdio: "ignore", env: io.env });
  child.on("error", (error) => io.stderr.write(`could not run BROWSER (${error.message}): open the page above by hand\n`));
  child.unref();
}
