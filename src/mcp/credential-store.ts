// The OAuth state of a workspace's MCP servers (client registration, tokens, discovery), in one file only its owner can read.
import { chmod, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readRegularText } from "../fs/regular-file.js";

/** The file, in the workspace; its name marks it as a secret for the gate, so the model cannot read it unasked. */
export const MCP_CREDENTIALS_FILE = "mcp-credentials.json";

/** What is kept for one server, valid only for the url it was obtained for. */
export interface ServerCredentials {
  url: string;
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  discovery?: OAuthDiscoveryState;
  /** The loopback redirect the client was registered with: a later sign-in listens there again. */
  redirectUrl?: string;
}

type FileShape = { servers: Record<string, ServerCredentials> };

/** The credentials file: mode 0600, replaced atomically, one change at a time; unreadable JSON counts as empty (signing in again mends it). */
export class CredentialStore {
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  /** The server's credentials, when they were obtained for this url. */
  async read(server: string, url: string): Promise<ServerCredentials | undefined> {
    const entry = (await this.load()).servers[server];
    return entry?.url === url ? entry : undefined;
  }

  /** Changes the server's entry (a fresh one when it was for another url); `undefined` from `change` removes it. */
  update(server: string, url: string, change: (entry: ServerCredentials) => ServerCredentials | undefined): Promise<void> {
    const run = this.queue.then(async () => {
      const data = await this.load();
      const current = data.servers[server];
      const next = change(current?.url === url ? current : { url });
      const servers = { ...data.servers };
      if (next === undefined) delete servers[server];
      else servers[server] = { ...next, url };
      await this.write({ servers });
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async load(): Promise<FileShape> {
    const text = await readRegularText(this.file).catch(() => undefined);
    if (text === undefined) return { servers: {} };
    try {
      const data = JSON.parse(text) as Partial<FileShape>;
      return { servers: typeof data.servers === "object" && data.servers !== null ? data.servers : {} };
    } catch {
      return { servers: {} };
    }
  }

  private async write(data: FileShape): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    // Created (or narrowed) to 0600 before the content arrives: the atomic write keeps the mode it finds.
    const handle = await open(this.file, "a", 0o600);
    await handle.close();
    await chmod(this.file, 0o600);
    await writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`);
  }
}
