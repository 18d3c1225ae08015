// Which files a recursive reader surely skips: rg's hidden files, grep's --include/--exclude/--exclude-dir, as GNU grep 3 applies them.
import type { TreeFilters } from "./read-plan.js";

/**
 * True only when the reader surely does not open the file `name` (a base name) met
 * while walking. GNU grep: the last --include/--exclude whose glob matches decides; when
 * none matches, the file is read unless the first of them is --include. A glob this module
 * cannot translate matches everything as an include and nothing as an exclude, so a doubt
 * always means "read".
 */
export function skipsFile(name: string, filters: TreeFilters): boolean {
  if (filters.skipHidden && name.startsWith(".")) return true;
  if (filters.fileFilters.length === 0) return false;
  for (let i = filters.fileFilters.length - 1; i >= 0; i--) {
    const { include, glob } = filters.fileFilters[i] as { include: boolean; glob: string };
    if (matches(glob, name, include)) return !include;
  }
  return filters.fileFilters[0]?.include === true && !filters.opaqueFilters;
}

/** True only when the reader surely does not enter the folder `name` (a base name). */
export function skipsDir(name: string, filters: TreeFilters): boolean {
  if (filters.skipHidden && name.startsWith(".")) return true;
  return filters.excludeDirs.some((glob) => matches(glob, name, false));
}

function matches(glob: string, name: string, whenUnsure: boolean): boolean {
  const re = fnmatchRegExp(glob);
  return re === null ? whenUnsure : re.test(name);
}

/** fnmatch without FNM_PERIOD (grep's globs match a leading dot too); null for syntax not translated here. */
function fnmatchRegExp(glob: string): RegExp | null {
  if (glob.includes("[:") || glob.includes("[=") || glob.includes("[.")) return null;
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "\\" && i + 1 < glob.length) source += escape(glob[++i] as string);
    else if (c === "*") source += "[\\s\\S]*";
    else if (c === "?") source += "[\\s\\S]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + (glob[i + 1] === "!" || glob[i + 1] === "^" ? 3 : 2));
      if (end === -1) source += "\\[";
      else {
        const body = glob.slice(i + 1, end).replace(/^[!^]/, "^").replace(/\\/g, "\\\\").replace(/^(\^?)\]/, "$1\\]");
        source += `[${body}]`;
        i = end;
      }
    } else source += escape(c);
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    return null;
  }
}

function escape(c: string): string {
  return c.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
