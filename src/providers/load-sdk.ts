// Loading a provider's SDK when that provider is chosen, and one line saying what to install when it is missing.
import { ConfigError } from "../errors.js";

/** The package of each provider's client: optional peer dependencies of miniclaw, installed by those who use them. */
export const PROVIDER_PACKAGES = { bedrock: "@anthropic-ai/bedrock-sdk", vertex: "@anthropic-ai/vertex-sdk", foundry: "@anthropic-ai/foundry-sdk" } as const;

/** What `npm install` needs for a provider, in one line. */
export function missingPackageMessage(provider: keyof typeof PROVIDER_PACKAGES): string {
  const name = PROVIDER_PACKAGES[provider];
  return `MINICLAW_PROVIDER=${provider} needs the package ${name}, which is not installed: run npm install ${name}`;
}

/** The module `load` imports; a missing package (and only that) becomes a ConfigError naming what to install. */
export async function loadSdk<T>(provider: keyof typeof PROVIDER_PACKAGES, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const message = error instanceof Error ? error.message : "";
    if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(PROVIDER_PACKAGES[provider])) throw new ConfigError(missingPackageMessage(provider));
    throw error;
  }
}
