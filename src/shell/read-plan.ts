// What a command the gate judged safe will read from the disk, for the second, disk-aware pass to verify.

/** `content`: bytes may reach the output; `name`: only names, sizes or counts; `tree`: every file under it is read; `listing`: every name is. */
type ReadKind = "content" | "name" | "tree" | "listing";

/** What a recursive reader skips by name (rg's hidden files, grep's --include/--exclude/--exclude-dir), and whether it follows links. */
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
export interface PlannedRead { path: string; glob: boolean; kind: ReadKind; program: string; physical?: string[]; filters?: TreeFilters }

/** What the disk pass checks: the reads, the folders where git shows history, and the revisions named (maybe outside every ref). */
export interface ReadPlan { reads: PlannedRead[]; gitContentDirs: string[]; gitObjects: string[] }
