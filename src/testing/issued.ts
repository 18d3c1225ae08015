// The thinking each response opened its turn with, keyed by the tool_use and server_tool_use ids it issued.
import type { LooseBlock } from "./conversation.js";

/** The thinking a response that issued `id` opened its turn with; undefined for ids this server never issued. */
export type IssuedThinking = (id: string) => readonly LooseBlock[] | undefined;

/**
 * One server's memory of what it sent, so a later request continuing the tool loop
 * (or a paused turn) can be checked to send that thinking back unchanged and in
 * order, as the API requires. Grows for the life of the server; ids are random, so
 * two servers never share one.
 */
export class IssuedLedger {
  readonly #byId = new Map<string, readonly LooseBlock[]>();

  /** Records `opening` for every tool_use and server_tool_use id in `content`. */
  remember(content: readonly unknown[], opening: readonly LooseBlock[]): void {
    for (const block of content) {
      if (typeof block !== "object" || block === null) continue;
      const { type, id } = block as LooseBlock;
      if ((type === "tool_use" || type === "server_tool_use") && typeof id === "string") this.#byId.set(id, opening);
    }
  }

  /** The lookup validation takes. */
  readonly lookup: IssuedThinking = (id) => this.#byId.get(id);
}
