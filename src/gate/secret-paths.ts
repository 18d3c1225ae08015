// Which paths hold secrets or never end when read: by name (and their backups), by place, and by their first few KB of content.
import { closeSync } from "node:fs";
import { openRegularSync, readAt } from "../fs/regular-file.js";
import { scanSecrets } from "./redact.js";

/** Folders whose whole content is secret, matched as a path segment. */
const SECRET_DIRS = new Set([".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store", "gcloud", "gh", ".m2", ".gradle", "anthropic", ".anthropic", "secrets", ".secrets"]);

/** Secret file names, matched against the last path segment (lower case) and the names it is a backup of. */
const SECRET_FILES: readonly RegExp[] = [
  /^\.env(\..+)?$/, /^.+\.env$/, /^\.envrc$/, /^[._]netrc$/, /^environ$/, /^krb5cc(_.*)?$/, /^ssh_host_.*key$/,
  /^\.(npmrc|pypirc|pgpass|git-credentials|htpasswd|boto|s3cfg|vault-token|my\.cnf|mylogin\.cnf|dockercfg|terraformrc|authinfo(\.gpg)?|passwd-s3fs|smbcredentials|cvspass)$/,
  /^(htpasswd|passwd-s3fs|terraform\.rc|debian\.cnf|chap-secrets|pap-secrets|ipsec\.secrets)$/,
  /^\.?credentials(\..+)?$/, /(^|[._-])credentials?\.(json|ya?ml|toml|ini|xml|csv|txt|conf|cfg|properties)$/,
  /^(auth|secrets?|token|service-?account.*|client_secrets?.*)\.json$/,
  /^(.+[._-])?secrets?\.(ya?ml|json|toml|ini|env|properties|conf|cfg|xml|tfvars)$/,
  /^(.+[._-])?\.?kubeconfig(\..+)?$/, /\.tfstate(\.backup)?$|\.tfvars(\.json)?$/, /^id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/, /^.+_(rsa|dsa|ecdsa|ed25519)(_sk)?$/,
  /^\.(bashrc|bash_profile|bash_login|bash_logout|profile|login|zshrc|zshenv|zprofile|zlogin|kshrc|cshrc|tcshrc|mkshrc)$/,
  /^\.(.*_)?history$|^\.histfile$|^\.lesshst$/, /^(\.claude\.json|config\.fish|fish_variables)$/,
  /\.(pem|key|p12|pfx|jks|keystore|kdbx|ppk|p8|pkcs12|keytab)$/,
];

/** Copies editors, tools and people leave: `.env~`, `id_rsa.bak`, `key.pem.orig`, vim's `.swp` to `.swa`, GNU's `.~1~`, a lock beside a config. */
const BACKUP_SUFFIX = /(~|\.~[0-9]+~|\.(bak|backup|orig|old|new|prev|save|sav|tmp|copy|lock|sw[a-p]))$/;

/** The names `name` may be a copy of, itself first: suffixes stripped one by one (`key.pem.bak.orig`), emacs's `#name#`, vim's `.id_rsa.swp`. */
function backupBaseNames(name: string): string[] {
  let current = /^#.+#$/.test(name) ? name.slice(1, -1) : name;
  const names = current === name ? [name] : [name, current];
  for (let strips = 0; strips < 4; strips++) {
    const stripped = current.replace(BACKUP_SUFFIX, "");
    if (stripped === current || stripped === "" || stripped === ".") break;
    if (/\.sw[a-p]$/.test(current) && stripped.startsWith(".")) names.push(stripped.slice(1));
    names.push(stripped);
    current = stripped;
  }
  return names;
}

/** Dotfiles and dot-folders directly in a home folder: shell profiles, tool configs and credential stores. */
const HOME_DOTFILE = /^(~[^/]*|\/root|\/home\/[^/]+|\/users\/[^/]+)\/\.[^/]/;
/** Templates that look like secrets by name but by convention hold none. */
const NOT_SECRET = /^\.env\.(example|sample|template|dist|defaults)$/;

const SECRET_SYSTEM_PATHS = new Set([
  "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers", "/etc/master.passwd", "/etc/security/opasswd",
  "/etc/mysql/debian.cnf", "/etc/kubernetes/admin.conf", "/etc/kubernetes/super-admin.conf", "/etc/kubernetes/kubelet.conf",
  "/etc/kubernetes/controller-manager.conf", "/etc/kubernetes/scheduler.conf",
]);

/** System folders that hold only secrets: container and systemd secrets, service-account tokens, TLS and VPN keys, saved Wi-Fi passwords. */
const SECRET_SYSTEM_DIRS = [
  "/run/secrets", "/var/run/secrets", "/run/credentials", "/var/run/credentials", "/etc/credstore", "/etc/credstore.encrypted",
  "/etc/ssl/private", "/etc/pki/tls/private", "/etc/letsencrypt/live", "/etc/letsencrypt/archive", "/etc/letsencrypt/accounts",
  "/etc/kubernetes/pki", "/var/lib/kubelet/pki", "/etc/rancher", "/etc/wireguard", "/etc/networkmanager/system-connections", "/etc/ipsec.d/private",
];

/** Names a wildcard is tested against: if it could match one of these, it could reach a secret. */
const SECRET_SAMPLES = [
  ".env", ".env.local", ".env~", ".ssh", ".aws", ".netrc", ".npmrc", ".git-credentials", ".pgpass", ".my.cnf", ".dockercfg", "credentials",
  "credentials.json", "id_rsa", "id_ed25519", "id_rsa.bak", "server.pem", "private.key", "secrets.json", "terraform.tfstate", "kubeconfig",
  "environ", ".bashrc", ".zshrc", ".profile", ".bash_history", ".claude.json",
];

/** Why reading or writing this literal path touches a secret or a device, or null. */
export function pathReason(path: string): string | null {
  return placeReason(path) ?? nameReason(path);
}

/** Why a path is a repository's configuration, whose remote URLs may carry a token: `config` (or a backup) in or below `.git`, or in a bare `*.git`. For reads. */
export function repositoryConfigReason(path: string): string | null {
  const segments = path.toLowerCase().split("/").filter((s) => s !== "");
  const last = segments[segments.length - 1];
  if (last === undefined || !backupBaseNames(last).some((n) => n === "config" || n === "config.worktree")) return null;
  const dirs = segments.slice(0, -1);
  if (!dirs.includes(".git") && !(dirs[dirs.length - 1] ?? "").endsWith(".git")) return null;
  return `reads ${path}, a repository's configuration (its remote URLs may carry a token)`;
}

/** Why a resolved absolute path is secret by where it is, whatever its folders are called: a device, /proc, a system secret, a home folder's dotfile. */
export function placeReason(path: string): string | null {
  const lower = path.toLowerCase().replace(/\/(\.?\/)+/g, "/");
  if ((lower.startsWith("/dev/") || lower === "/dev") && lower !== "/dev/null") return `reads the device ${path} (may never end)`;
  if (/^\/proc\/[^/]+\/(environ|mem)$/.test(lower)) return `reads ${path}, a process's environment or memory`;
  if (isProcessSecretPath(lower)) return `reads ${path}: /proc holds process environments (and the API key)`;
  // A system secret by its whole path (a backup too: `/etc/shadow.bak`), or anything in a system secret folder.
  const slash = lower.lastIndexOf("/");
  const names = backupBaseNames(lower.slice(slash + 1)).map((n) => `${lower.slice(0, slash)}/${n}`);
  const inSystemDir = SECRET_SYSTEM_DIRS.some((dir) => lower === dir || lower.startsWith(`${dir}/`));
  if (inSystemDir || names.some((p) => SECRET_SYSTEM_PATHS.has(p))) return `reads ${path}, a system secret`;
  if (HOME_DOTFILE.test(lower)) return `reads ${path}, a file of a home folder's configuration (keys are often kept there)`;
  return null;
}

/** Why a path is secret by its names (a folder such as `.ssh` on the way, a file such as `.env`); for a resolved path, pass the part below the working folder. */
export function nameReason(path: string): string | null {
  const lower = path.toLowerCase();
  const segments = lower.split("/").filter((s) => s !== "");
  const dir = secretDirReason(segments.slice(0, -1));
  if (dir !== null) return dir;
  const last = segments[segments.length - 1];
  if (last === undefined) return null;
  const names = backupBaseNames(last);
  if (names.some((n) => NOT_SECRET.test(n))) return null;
  if (names.some((n) => SECRET_DIRS.has(n))) return `reads ${path}, which holds secrets`;
  return names.some((n) => SECRET_FILES.some((re) => re.test(n))) ? `reads ${path}, which may hold secrets` : null;
}

/** Why a folder among `segments` (lower case) holds secrets: it is a secret folder or a copy of one (`.ssh.bak`). */
function secretDirReason(segments: readonly string[]): string | null {
  const dir = segments.find((s) => backupBaseNames(s).some((n) => SECRET_DIRS.has(n)));
  return dir === undefined ? null : `reads inside ${dir}/, which holds secrets`;
}

/** Source, build output and docs named after credentials (`credentials.ts`, `credentials.d.mts.map`): code, not a credential store. */
const CREDENTIALS_CODE = /credentials.*\.([mc]?[jt]sx?|map|py|pyc|go|rs|rb|java|kt|class|c|h|cc|cpp|hpp|cs|php|swift|md|rst|html)$/i;

/** `nameReason` for what a walk meets (the files `grep -r` reads, a git history's paths): a folder counts only by its name, and code named after credentials is none. */
export function walkNameReason(path: string, isDir: boolean): string | null {
  if (isDir) return secretDirReason(path.toLowerCase().split("/"));
  return CREDENTIALS_CODE.test(path.slice(path.lastIndexOf("/") + 1)) ? null : nameReason(path);
}

/** Why a wildcard pattern could match a secret (by the typical secret names), or null. */
export function globReason(pattern: string): string | null {
  const plain = pathReason(pattern.replace(/[*?[\]{}]/g, ""));
  if (plain !== null && /\/dev\/|\/proc\//.test(pattern)) return plain;
  const segments = pattern.split("/").filter((s) => s !== "");
  for (const segment of segments) {
    if (!/[*?[{]/.test(segment)) {
      if (SECRET_DIRS.has(segment.toLowerCase())) return `reads inside ${segment}/, which holds secrets`;
      continue;
    }
    const re = globToRegExp(segment);
    const hit = SECRET_SAMPLES.find((name) => re.test(name));
    if (hit !== undefined) return `the wildcard \`${pattern}\` could match a secret such as ${hit}`;
  }
  return plain;
}

/** A shell wildcard segment as a regular expression matching at least what bash would; a leading dot must be literal, as in bash. */
export function globToRegExp(segment: string): RegExp {
  let source = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i] as string;
    const close = c === "[" ? segment.indexOf("]", i + 2) : -1;
    if (close !== -1) {
      // Any one character, as bash matches; or, as this check read brackets before, the text inside anywhere.
      source += `(?:[^/]|[^/]*${[...segment.slice(i + 1, close)].map(charSource).join("")}[^/]*)`;
      i = close;
    } else source += charSource(c);
  }
  const dotRule = segment.startsWith(".") ? "" : "(?!\\.)";
  return new RegExp(`^${dotRule}${source}$`, "i");
}

function charSource(c: string): string {
  if (c === "?") return "[^/]";
  if ("*[]{}".includes(c)) return "[^/]*";
  return c.replace(/[\\^$.+()|]/g, "\\$&");
}

/** Files under /proc that hold nothing secret; every other /proc path is refused. */
const HARMLESS_PROC = new Set(["cpuinfo", "meminfo", "loadavg", "uptime", "version", "stat", "mounts", "filesystems", "swaps"]);

/** Whether a resolved path is a process environment file (refused for the file tools in every mode). */
export function isProcessSecretPath(path: string): boolean {
  const p = normalizeSlashes(path);
  return (p === "/proc" || p.startsWith("/proc/")) && !HARMLESS_PROC.has(p.slice("/proc/".length));
}

/** Collapses repeated slashes and `/./` segments; leaves `..` alone (it never shortens toward /proc safely). */
export function normalizeSlashes(word: string): string {
  if (!word.startsWith("/")) return word;
  let path = word.replace(/\/+/g, "/");
  while (path.includes("/./")) path = path.replace("/./", "/");
  if (path.endsWith("/.")) path = path.slice(0, -2) || "/";
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** How much of a file the content check reads: credentials files are small, and a key's header comes first. */
export const CONTENT_HEAD_BYTES = 8 * 1024;

/** Why the first bytes of a file (UTF-8, at most `CONTENT_HEAD_BYTES`) make it a secret: the first credential the redaction shapes find in them, or null. */
export function contentSecretReason(head: Buffer | string): string | null {
  const label = scanSecrets(typeof head === "string" ? head : head.toString("utf8")).labels[0];
  if (label === undefined) return null;
  const what =
    label === "URL credentials" ? "a URL with credentials"
    : label === "authorization" ? "an Authorization header"
    : ["password", "secret", "token", "credential"].includes(label) ? `a ${label} assignment`
    : `${/^[AEIOU]/.test(label) ? "an" : "a"} ${label}`;
  return `its content holds what looks like ${what}`;
}

/** `contentSecretReason` of the file at `path` (a real path); null when it is missing, empty or not a regular file. Other failures throw. */
export function fileContentSecretReason(path: string): string | null {
  const head = readFileHead(path, CONTENT_HEAD_BYTES);
  return head === null || head.length === 0 ? null : contentSecretReason(head);
}

/** The first `maxBytes` bytes of the regular file at `path`, opened without blocking; null when missing or not a regular file. Other failures (EACCES) throw. */
export function readFileHead(path: string, maxBytes: number): Buffer | null {
  let opened: { fd: number; size: number };
  try {
    opened = openRegularSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // openRegularSync refuses a non-regular file with an error of its own, which has no code.
    if (code === undefined || code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return null;
    throw error;
  }
  try {
    // A size of 0 may not be the truth (a file being written): read what is there.
    return readAt(opened.fd, 0, opened.size === 0 ? maxBytes : Math.min(maxBytes, opened.size));
  } finally {
    closeSync(opened.fd);
  }
}
