// What one sandboxed command may touch: the policy's shape and the three policies the gate's verdicts map to.
import { gitProtectedPaths, homeSecretPaths, shellStartupPaths, systemSecretPaths, type ListDir } from "./secret-locations.js";

/** `read-only`: what the gate proved read-only; `confined`: what `auto` runs unasked (writing only the working folder, offline); `approved`. */
export type SandboxKind = "read-only" | "confined" | "approved";

/** The user's setting: `off` (no sandbox), `on` (the default where bubblewrap works), `auto` (confined commands run unasked). */
export type SandboxSetting = "off" | "on" | "auto";

/** One command's sandbox, as paths; `resolveSandbox` turns it into mounts. */
export interface SandboxPolicy {
  kind: SandboxKind;
  /** Where the command starts; always visible. */
  cwd: string;
  /** Visible even where it lies under a folder the sandbox makes private (/tmp, /run). */
  workspace?: string;
  /** The command's own TMPDIR, an existing folder the caller made: writable under every kind. */
  tmpdir: string;
  /** Folders the command may write besides its TMPDIR; none for `read-only`. */
  writableRoots: string[];
  /** Kept read-only even inside a writable root: git hooks and config, configuration files, shell start-up files. */
  readOnlyInside: string[];
  /** Hidden: a folder shows empty, a file reads as empty. Missing paths are skipped. */
  masked: string[];
  network: boolean;
  /** Whether it may open Unix sockets; denied, no local service (docker, D-Bus, ssh-agent) answers it, and /run is private. */
  unixSockets: boolean;
}

/** Where a command runs and what the user set: what `policyFor` needs. */
export interface PolicyPlace {
  cwd: string;
  workspace?: string;
  tmpdir: string;
  home: string;
  setting: "on" | "auto";
  /** `sandbox.network` for approved commands: the user approved the command, so the default is allow. */
  network: boolean;
  /** The workspace's configuration files (and any other the caller names): never writable from a command. */
  configFiles?: string[];
  /** The project's secret files, found by name or content by the caller. */
  projectSecrets?: string[];
  listDir?: ListDir;
}

/**
 * The policy of each kind. Commands that run unasked see no secret, no network and no Unix socket. An `approved` one keeps
 * the credentials, local services and the network as set (`git push`, `npm publish`, `docker` are what users approve), but
 * writes only the working folder, the workspace and TMPDIR, never configuration (in `auto`, nor git hooks, config, shell start-up files).
 */
export function policyFor(kind: SandboxKind, place: PolicyPlace): SandboxPolicy {
  const system = systemSecretPaths(place.listDir);
  const config = place.configFiles ?? [];
  const base = { kind, cwd: place.cwd, tmpdir: place.tmpdir, ...(place.workspace === undefined ? {} : { workspace: place.workspace }) };
  if (kind === "approved") {
    const writableRoots = place.workspace === undefined ? [place.cwd] : [place.cwd, place.workspace];
    const guarded = place.setting === "auto" ? [...gitProtectedPaths(writableRoots), ...shellStartupPaths(place.home)] : [];
    return { ...base, writableRoots, readOnlyInside: [...guarded, ...config], masked: system, network: place.network, unixSockets: true };
  }
  const masked = [...homeSecretPaths(place.home), ...system, ...(place.projectSecrets ?? [])];
  const writableRoots = kind === "confined" ? [place.cwd] : [];
  const readOnlyInside = kind === "confined" ? [...gitProtectedPaths(writableRoots), ...shellStartupPaths(place.home), ...config] : [];
  return { ...base, writableRoots, readOnlyInside, masked, network: false, unixSockets: false };
}
