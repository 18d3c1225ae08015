// Git configuration through the environment (GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n), appended to the user's own.

type Env = Record<string, string | undefined>;

/**
 * A copy of `env` that gives git `entries` as command-line configuration: the scope that outranks
 * every config file, and one of the "protected" scopes git reads `safe.bareRepository` from. Pairs the
 * user already set are kept and ours come after them, so ours win where both name the same key. A
 * count git would reject (not a whole number) is replaced: git refuses to run with it anyway.
 */
export function withGitConfig(env: Env, entries: ReadonlyArray<readonly [string, string]>): Env {
  const out: Env = { ...env };
  const raw = env["GIT_CONFIG_COUNT"];
  const existing = raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : 0;
  entries.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${existing + i}`] = key;
    out[`GIT_CONFIG_VALUE_${existing + i}`] = value;
  });
  out["GIT_CONFIG_COUNT"] = String(existing + entries.length);
  return out;
}
