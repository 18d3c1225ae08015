// The `web` field of SOUL.md: which of the API's server tools (web_search, web_fetch) an agent offers, and their limits.
import * as z from "zod";
import type { WebSettings } from "../types.js";

/** What `web: true` offers: a few searches and fetches per request, each page cut to a size that leaves room to work. */
export const DEFAULT_WEB: Required<Pick<WebSettings, "search" | "fetch">> = {
  search: { maxUses: 5 },
  fetch: { maxUses: 5, maxContentTokens: 20_000 },
};

const SHAPE = "must be true, false or { search: {...}, fetch: {...} }";

const count = (what: string) =>
  z
    .number({ error: `must be a whole number of ${what}` })
    .int(`must be a whole number of ${what}`)
    .positive("must be greater than 0")
    .optional();

const domains = z.array(z.string().trim().min(1), { error: "must be a list of domains, such as [docs.python.org]" }).optional();

/** The API takes one list or the other, never both: refused here, at load, rather than by every request. */
const oneList = (tool: { allowed_domains?: string[] | undefined; blocked_domains?: string[] | undefined }): boolean =>
  !(tool.allowed_domains && tool.blocked_domains);
const NOT_BOTH = { message: "may give allowed_domains or blocked_domains, not both" };

const search = z
  .strictObject(
    { max_uses: count("searches"), allowed_domains: domains, blocked_domains: domains },
    { error: "must be true, false or { max_uses, allowed_domains, blocked_domains }" },
  )
  .refine(oneList, NOT_BOTH);

const fetch = z
  .strictObject(
    { max_uses: count("fetches"), max_content_tokens: count("tokens"), allowed_domains: domains, blocked_domains: domains },
    { error: "must be true, false or { max_uses, max_content_tokens, allowed_domains, blocked_domains }" },
  )
  .refine(oneList, NOT_BOTH);

const onOff = <T extends z.ZodType>(tool: T) => z.union([z.boolean(), z.null(), tool]).optional();

/** `web: true | false`, or `{ search, fetch }` where each is `true`, `false` or its settings; a tool left out is off. */
export const webField = z
  .union([z.boolean(), z.strictObject({ search: onOff(search), fetch: onOff(fetch) }, { error: SHAPE })], { error: SHAPE })
  .transform((web): WebSettings => {
    if (web === false) return {};
    if (web === true) return { ...DEFAULT_WEB };
    const s = web.search === true ? {} : web.search;
    const f = web.fetch === true ? {} : web.fetch;
    const settings: WebSettings = {};
    if (s) {
      const given = { maxUses: s.max_uses, allowedDomains: s.allowed_domains, blockedDomains: s.blocked_domains };
      settings.search = { ...DEFAULT_WEB.search, ...defined(given) };
    }
    if (f) {
      const given = { maxUses: f.max_uses, maxContentTokens: f.max_content_tokens, allowedDomains: f.allowed_domains, blockedDomains: f.blocked_domains };
      settings.fetch = { ...DEFAULT_WEB.fetch, ...defined(given) };
    }
    return settings;
  });

function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
