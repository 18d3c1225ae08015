// Version queries of toolchains whose version flag only prints and exits: `python3 --version`, `java -version`, `gcc --version`...
import { familyReason } from "./command-families.js";
import type { ProgramRule } from "./program-rules.js";
import type { ShellWord } from "./shell-words.js";

/**
 * Program → the one-word arguments that only print its version. Left out on purpose: `go`
 * (a `toolchain` line in go.mod makes any go command download and run another toolchain),
 * `rustc`/`cargo` behind rustup (a rust-toolchain.toml can name a toolchain to install or a
 * path to run), `yarn`/`pnpm` (corepack downloads the version package.json pins), `ruby -v`
 * and `php -v` style flags that go on to run a program from stdin, and `tsc` or other
 * project-local scripts.
 */
const VERSION_FLAGS: ReadonlyArray<readonly [programs: readonly string[], flags: readonly string[]]> = [
  [["python", "python3"], ["--version", "-V"]],
  [["java", "javac"], ["-version", "--version"]],
  [["gcc", "g++", "cc", "c++", "clang", "clang++"], ["--version"]],
  [["make", "cmake", "ninja"], ["--version"]],
  [["perl"], ["--version", "-v"]],
  [["ruby", "deno", "bun", "docker", "bash"], ["--version"]],
];

function versionRule(program: string, flags: readonly string[]): ProgramRule {
  return {
    check: (_args, words: readonly ShellWord[]) => {
      const only = words.length === 1 ? words[0] : undefined;
      if (only !== undefined && !only.glob && only.dynamic !== true && flags.includes(only.value)) return null;
      return `${familyReason(program)}; only \`${program} ${flags[0] ?? "--version"}\` is read-only`;
    },
  };
}

/** One rule per program of VERSION_FLAGS: the version query is safe, anything else keeps its family's reason. */
export const VERSION_RULES: ReadonlyArray<readonly [string, ProgramRule]> = VERSION_FLAGS.flatMap(([programs, flags]) =>
  programs.map((program) => [program, versionRule(program, flags)] as const),
);
