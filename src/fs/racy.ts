// How far a file's times can be trusted to tell a change: the "racy" window, as git's index knows it.

/**
 * A file (or folder) whose modification or change time is this recent may change again within the
 * same clock tick of a coarse file system without its times moving: a read that recent is not
 * trusted to stay current on its times alone.
 */
export const RACY_MS = 2_000;
