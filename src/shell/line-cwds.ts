// The folders the commands of one line may run in: the working folder and every `cd` target, followed as bash would.
import { physicalWords, PREVIOUS_FOLDER, resolveWord, type Base, type PathContext } from "./path-resolve.js";
import type { ShellWord, SimpleCommand } from "./shell-parse.js";
import { wordVariants } from "./word-reads.js";

/** Past this many possible folders the gate stops following `cd` and asks. */
const MAX_BASES = 16;

/**
 * Every folder a command of the line may run in. A `cd` may fail or sit in a subshell, so each target is added to the
 * working folder rather than replacing it, and every command is judged from all of them. `cd` alone goes home; `cd -`
 * to $OLDPWD, which may be any folder: both `/` and a folder of unknown place (`~-`).
 */
export function lineBases(commands: readonly SimpleCommand[], context: PathContext): { bases: Base[]; reason: string | null } {
  const bases = new Set<Base>([context.cwd ?? ""]);
  for (const command of commands) {
    const [name, ...args] = command.argv;
    if (name?.value !== "cd" || name.glob || name.dynamic === true) continue;
    const target = cdTarget(args);
    if (target === "-") {
      bases.add("/").add(PREVIOUS_FOLDER);
      continue;
    }
    const variants = wordVariants(target);
    if ("reason" in variants) return { bases: [...bases], reason: `cd ${variants.reason}` };
    if (variants.values.some((v) => v.glob) || target.dynamic === true) return { bases: [...bases], reason: `cd into \`${target.value}\`, a folder the gate cannot know in advance` };
    const from = [...bases];
    for (const { value } of variants.values) {
      for (const path of resolveWord(value, from, context.home)) bases.add(path);
      // Where the kernel's `cd` lands when `..` follows a link.
      for (const path of physicalWords(value, from, context.home)) bases.add(path);
    }
    if (bases.size > MAX_BASES) return { bases: [...bases], reason: "the line changes folder too many times for the gate to follow" };
  }
  return { bases: [...bases], reason: null };
}

const HOME: ShellWord = { value: "~", glob: false };

/** The folder `cd` goes to: its first operand, home without one, `-` for the previous folder. */
function cdTarget(args: readonly ShellWord[]): ShellWord | "-" {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as ShellWord;
    if (word.value === "-") return "-";
    if (word.value === "--") return args[i + 1] ?? HOME;
    if (!word.value.startsWith("-")) return word;
  }
  return HOME;
}
