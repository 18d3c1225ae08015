// The read-only rules added for everyday commands: what each family lets through, what it still refuses, and awk's program reader against gawk's sandbox.
import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAwkProgram } from "../../src/shell/rules-awk.js";
import { checkCommandSafety } from "../../src/shell/safety.js";
import { sandboxSupport } from "../../src/shell/child-sandbox.js";
import { makeTempDir } from "../helpers/tool-context.js";

const SAFE: Record<string, string[]> = {
  archives: ["tar -tzf a.tgz", "tar tvf a.tar", "tar --list --file=a.tar", "tar -tf host:a.tar --force-local", "unzip -l a.zip", "unzip -Z -1 a.zip", "zcat a.gz", "gzip -dc a.gz", "gunzip -c a.gz", "gzip -l a.gz", "xz -dc a.xz", "bzcat a.bz2"],
  system: ["hostname", "hostname -s", "nproc --all", "id -u", "type -t ls", "command -v git", "command -V git", "cksum a", "seq 5", "seq 10 -2 0", "seq -s, 1 100", "test -d src", "[ -n \"$(git status --porcelain)\" ]", "[ \"$(date +%u)\" -gt 5 ]", "[ ! \"$(ls)\" ]"],
  compare: ["diff -ru a b", "cmp -l a b", "comm -3 a b", "column -t -s: /etc/group", "xxd -l 16 a", "xxd -c 8 -g 1 a", "od -An -tx1 a", "hexdump -C a", "strings -n 8 a"],
  awk: ["awk '{ print $1 }' f", "awk -F: -v OFS=, '$3 >= 1000 { print $1, $3 }' /etc/passwd", "awk '/a|b/ { n++ } END { print n }' f", "awk '{ print ($1 > 2) }' f", "awk 'BEGIN { x = 4 / 2; print x }'", "awk '$0 ~ /[/]/' f"],
  versions: ["python3 --version", "java -version", "gcc --version", "make --version", "perl -v", "bash --version", "awk --version"],
  git: ["git tag", "git tag -l 'v1.*' --sort=-version:refname", "git stash list --oneline", "git stash show -p stash@{1}", "git shortlog -s HEAD~10..", "git describe --tags --abbrev=0", "git rev-list --count main..HEAD", "git cat-file -s HEAD", "git ls-tree HEAD src", "git merge-base --is-ancestor a b", "git for-each-ref refs/tags", "git show-ref --heads", "git name-rev --name-only HEAD", "git reflog show --date=iso", "git count-objects -v", "git log --pretty=fuller -1",
    "git reflog -p --no-ext-diff --no-textconv -1", "git shortlog -s --group=author HEAD", "git stash list --name-only"],
  substitutions: ["echo \"$(date +%F)\"", "echo $(git rev-parse HEAD)", "printf '%s\\n' \"$(pwd)\" `whoami`", "type $(echo ls)", "echo \"a`date`b\"", "basename \"$(pwd)\"", "dirname $(git rev-parse --show-toplevel)"],
};

const REFUSED: Record<string, string[]> = {
  archives: ["tar -tf a.tar --to-command=sh", "tar -tf a.tar -I sh", "tar -xf a.tar", "tar -t", "tar -tf h:a.tar", "tar ctf a.tar", "unzip a.zip", "unzip -l a.zip -d x", "gzip a", "gzip -d a.gz", "xz --files=list -dc", "bzip2 -d a.bz2", "zcat a.gz > b",
    "gzip -rc .", "zcat -rf .", "xz -t -z f", "bzip2 -t -d a.bz2", "unxz -t a.xz", "xz -l -S .x f", "gzip -t -f a.gz"],
  system: ["hostname new", "hostname -F f", "command ls", "command -p ls", "seq 1e12", "seq 1 0 5", "test -v 'a[$(id)]'", "[ $(date) ]", "[ \"$(a)\" \"$(b)\" \"$(c)\" \"$(d)\" ]", "free -s 1", "sha256sum .env", "sha256sum -c SUMS"],
  compare: ["diff -l a b", "diff --exclude-from=x a b", "xxd -r a", "xxd a b", "xxd -l 1 a b", "strings @f a", "hexdump -f fmt a", "diff a .env"],
  awk: ["awk '{ print > \"x\" }' f", "awk '{ print $1 | \"sort\" }' f", "awk 'BEGIN { getline l < \"/etc/shadow\" }'", "awk 'BEGIN { print ENVIRON[\"HOME\"] }'", "awk -f p.awk", "awk -o out '{}'", "awk -d '{}'", "awk 'BEGIN { @f() }'", "awk '{ print }' /inet6/tcp/0/h/80", "awk 'unterminated \"str' f"],
  versions: ["python3 -c 1", "python3 --version script.py", "java -jar a.jar", "perl -e 1", "bash -c ls", "make", "go version", "rustc --version"],
  git: ["git tag v2", "git tag -d v1", "git tag -v v1", "git tag -s v2 -m x", "git stash", "git stash pop", "git stash show --ext-diff", "git shortlog -s", "git describe --dirty", "git cat-file --filters HEAD:a", "git cat-file -p", "git reflog expire --all", "git reflog delete HEAD@{1}", "git worktree remove x", "git log --format=%GG", "git log --pretty=custom", "git for-each-ref --format='%(signature:key)'", "git name-rev --annotate-stdin",
    "git reflog -p", "git stash list --patch", "git shortlog --group=format:%G? HEAD"],
  substitutions: ["cat $(ls)", "ls `pwd`", "echo > \"$(date)\"", "printf \"$(cat f)\" x", "$(which ls)", "echo $(rm x)", "cat <(curl x)", "echo \"$HOME $(date)\""],
};

describe("read-only rules for everyday commands", () => {
  for (const [family, commands] of Object.entries(SAFE)) {
    it(`lets ${family} through`, async () => {
      const unsafe = commands.filter((c) => !(family === "awk" && !sandboxSupport().awk));
      const verdicts = await Promise.all(unsafe.map(async (c) => [c, await checkCommandSafety(c)]));
      expect(verdicts).toEqual(unsafe.map((c) => [c, "safe"]));
    });
  }
  it("still refuses the forms that write, run programs, read secrets or never end", async () => {
    const commands = Object.values(REFUSED).flat();
    const verdicts = await Promise.all(commands.map(async (c) => [c, await checkCommandSafety(c)]));
    expect(verdicts).toEqual(commands.map((c) => [c, "needs_approval"]));
  });
});

/** Compressor commands in every mode the rules weigh; `writes` marks those seen to write or delete a file (checked below). */
const COMPRESSOR_PROBES: ReadonlyArray<readonly [string, boolean]> = [
  ["gzip -l a.gz", false], ["gzip -t a.gz", false], ["gzip -t -d a.gz", false], ["gzip -dc a.gz", false], ["zcat -f a.gz f", false], ["xz -l a.xz", false],
  ["xz -t a.xz", false], ["xz -dc a.xz", false], ["xzcat -z f", false], ["bzip2 -t a.bz2", false], ["bzip2 -dc a.bz2", false], ["bzcat -z f", false],
  ["xz -l -z f", true], ["xz --test --compress f", true], ["xz -t -d a.xz", true], ["unxz -lz f", true], ["bzip2 -t -z f", true], ["bzip2 -t -d a.bz2", true],
  ["xz -tzk -S .json f", true], ["gzip -c -r d > /dev/null", false],
];

describe("compressors against the real programs", () => {
  it("refuses every form seen writing in a real folder (the others are in the safe and refused lists above)", async () => {
    const dir = await makeTempDir();
    // The folder is made once and copied fresh for each probe: a few processes per probe instead of ten.
    const loop = 'mkdir -p "$1/t/d" && cd "$1/t" && printf a > a && gzip -k a && xz -k a && bzip2 a && printf f > f && printf s > d/s && b=$(ls -R) || exit 1; ' +
      'for c in "${@:2}"; do rm -rf "$1/w"; cp -a "$1/t" "$1/w" && cd "$1/w"; eval "$c" >/dev/null 2>&1; [ "$b" = "$(ls -R)" ] && echo same || echo changed; done';
    const run = spawnSync("bash", ["-c", loop, "bash", dir, ...COMPRESSOR_PROBES.map(([c]) => c)], { encoding: "utf8" });
    const seen = run.stdout.trim().split("\n").map((mark) => mark === "changed");
    expect(seen).toEqual(COMPRESSOR_PROBES.map(([, writes]) => writes));
    const writers = COMPRESSOR_PROBES.filter(([, writes]) => writes).map(([c]) => c);
    const verdicts = await Promise.all(writers.map(async (c) => [c, await checkCommandSafety(c)]));
    expect(verdicts).toEqual(writers.map((c) => [c, "needs_approval"]));
  });
});

/** Statements that mix pipes, redirections, comparisons, regular expressions with quotes and strings with slashes. */
const STATEMENTS = [
  'print "a"', 'print "|"', "print 1 > 2", "print (1 > 2)", 'print "x" > "out"', 'print "x" | "cat"', 'if (1) /"/', "x = /a|b/", 'x = "a" "|" "b"',
  'printf "%s", "y" >> "out"', "print 1 /2/ 1", "y = 4 / 2 / 1", 'print /[/"]/', 'n = split("a|b", arr, "|")', 'print length("x") > 0', 'while (0) /"/',
  "x++ / 2", 'z = "\\""', '# c | "sh"', 'if (x) print "a"; else print "b" > "f"', 'print $0 ~ /"|"/', 'q = "/"', 'r = 1 / 1 / 1; s = "/"',
];
const program = fc
  .tuple(fc.array(fc.constantFrom(...STATEMENTS), { minLength: 1, maxLength: 4 }), fc.constantFrom("; ", "\n"), fc.boolean())
  .map(([statements, sep, wrap]) => `BEGIN { ${wrap ? "if (1) { " : ""}${statements.join(sep)}${wrap ? " }" : ""} }`);
const MAX_CHECKED = 100;

describe.runIf(sandboxSupport().awk)("awk program reader against gawk's sandbox", () => {
  it("accepts no program in which gawk's sandbox finds a pipe, a redirection or a command", async () => {
    const accepted = new Set<string>();
    for (const text of fc.sample(program, { seed: 20_261_201, numRuns: 1_500 })) if (accepted.size < MAX_CHECKED && checkAwkProgram(text) === null) accepted.add(text);
    expect(accepted.size).toBe(MAX_CHECKED);
    const dir = await makeTempDir();
    writeFileSync(join(dir, "cases"), [...accepted].join("\0") + "\0");
    // awk's output goes to a file outside the folder and is read back by a builtin: no subshell per case.
    const loop = `cd "$1" && while IFS= read -r -d '' p; do awk --sandbox "$p" </dev/null >"$2" 2>&1; IFS= read -r -d '' out <"$2"; if [[ $out == *"sandbox mode"* ]]; then echo X; else echo .; fi; done < cases`;
    const marks = spawnSync("bash", ["-c", loop, "bash", dir, join(await makeTempDir(), "out")], { encoding: "utf8" }).stdout.trim().split("\n");
    expect(marks.length).toBe(accepted.size);
    expect([...accepted].filter((_, i) => marks[i] === "X")).toEqual([]);
    expect(readdirSync(dir)).toEqual(["cases"]);
  });
});
