// What a command the gate judged safe will read from the disk, for the second, disk-aware pass to verify.

/**
 * How a path is read. `content`: its bytes may reach the output. `name`: only names, sizes or counts come out. `tree`:
 * every file under a folder is read (`grep -r`, `rg`). `listing`: every name under a folder is listed (`ls -R`, `find`).
 */
type ReadKind = "content" | "name" | "tree" | "listing";

/**
 * Which files a recursive reader skips by name, and whether it follows links: rg's hidden files, `grep -R`/`rg -L`, grep's
 * `--include`/`--exclude` globs in order and `--exclude-dir` globs; `opaqueFilters` (`--exclude-from`): no include relied on.
 */
export interface TreeFilters {
  skipHidden: boolean;
  followLinks: boolean;
  fileFilters: ReadonlyArray<{ include: boolean; glob: string }>;
  excludeDirs: readonly string[];
  opaqueFilters: boolean;
}

/** A walk that skips nothing and follows no link. */
export const NO_FILTERS: TreeFilters = { skipHidden: false, followLinks: false, fileFilters: [], excludeDirs: [], opaqueFilters: false };

/** One path `program` may read: absolute, maybe with wildcards to expand, and as the kernel opens it when it climbs with `..` (`physical`). */
export interface PlannedRead {
  path: string;
  glob: boolean;
  kind: ReadKind;
  program: string;
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
