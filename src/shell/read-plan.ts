// What a command the gate judged safe will read from the disk, for the second, disk-aware pass to verify.

/**
 * How a path is read. `content`: its bytes may reach the output. `name`: only names, sizes or counts come out. `tree`:
 * every file under a folder is read (`grep -r`, `rg`). `listing`: every name under a folder is listed (`ls -R`, `find`).
 */
type ReadKind = "content" | "name" | "tree" | "listing";

/** Which files a recursive reader skips by name, and whether it follows links. */
export interface TreeFilters {
  /** rg skips dotfiles and dot-folders. */
  skipHidden: boolean;
  /** grep -R, rg -L: symlinks met on the way are followed. */
  followLinks: boolean;
  /** grep's `--include`/`--exclude` globs in the order given. */
  fileFilters: ReadonlyArray<{ include: boolean; glob: string }>;
  /** grep's `--exclude-dir` globs. */
  excludeDirs: readonly string[];
  /** `--exclude-from` and the like: filters the gate cannot read, so no include is relied on. */
  opaqueFilters: boolean;
}

/** A walk that skips nothing and follows no link. */
export const NO_FILTERS: TreeFilters = { skipHidden: false, followLinks: false, fileFilters: [], excludeDirs: [], opaqueFilters: false };

/** One path a command may read: absolute, possibly with wildcards still to expand. */
export interface PlannedRead {
  path: string;
  glob: boolean;
  kind: ReadKind;
  /** The program, for the reason shown to the user. */
  program: string;
  /** The same path unnormalised, as the kernel opens it, when it climbs with `..` (see `physicalWords`). */
  physical?: string[];
  filters?: TreeFilters;
}

/**
 * Everything the disk pass checks: the reads, the folders where git shows file contents from history (`git log -p`,
 * `git show`), and the revisions those commands name (which may lie outside every ref: a dangling commit, a blob by id).
 */
export interface ReadPlan {
  reads: PlannedRead[];
  gitContentDirs: string[];
  gitObjects: string[];
}
